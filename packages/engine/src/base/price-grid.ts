/**
 * A price grid: evenly spaced `{min, max, step}` (inclusive) or an explicit ascending list, in currency units (the
 * shape of the scenario schema's `PriceGridSchema`, declared here so this base module depends on nothing).
 */
export type PriceGrid = { readonly min: number; readonly max: number; readonly step: number } | number[];

export function roundCents(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Expands a grid spec into ascending, de-duplicated prices rounded to cents. */
export function expandGrid(grid: PriceGrid): number[] {
  let prices: number[];
  if (Array.isArray(grid)) {
    prices = grid.map(roundCents);
  } else {
    if (grid.min > grid.max) throw new Error("price grid min above max");
    const n = Math.floor((grid.max - grid.min) / grid.step + 1e-9);
    if (n > 10_000) throw new Error("price grid has more than 10000 prices");
    prices = [];
    for (let i = 0; i <= n; i++) prices.push(roundCents(grid.min + i * grid.step));
  }
  return [...new Set(prices)].sort((a, b) => a - b);
}
