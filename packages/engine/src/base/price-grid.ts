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

/**
 * Step of every grid built from a catalogue product, as a fraction of its base price: 0.5x..2x is 39 prices. A
 * 2 % grid doubles the network's actions and the training time for under 0.1 % of margin (the optimum of a smooth
 * margin curve is at most 2 % away, a second-order loss), and the server trains within a few seconds.
 */
export const CATALOG_GRID_STEP = 0.04;

/** What a catalogue product says about its prices (currency units; max daily change a fraction, null = none). */
export interface CatalogPrices {
  readonly basePrice: number;
  readonly minPrice: number;
  readonly maxPrice: number;
  readonly maxDailyChange: number | null;
}

/**
 * The price grid of a catalogue product, the one used by the API and the benchmarks: steps of
 * `CATALOG_GRID_STEP` x base price around the base price, plus both guardrails, in cents; where one step is more
 * than the max daily change, cents-rounded midpoints fill the gap (so the policy can always move), until a step
 * is one cent.
 */
export function catalogGrid(product: CatalogPrices): number[] {
  const { basePrice: base, minPrice, maxPrice } = product;
  if (minPrice > maxPrice) throw new RangeError("price grid min above max");
  if (!(base > 0) || !(minPrice > 0)) throw new RangeError("price grid needs positive base and min prices");
  const step = CATALOG_GRID_STEP * base;
  const anchor = Math.min(maxPrice, Math.max(minPrice, base));
  const raw = [minPrice, maxPrice, anchor];
  for (let p = anchor - step; p > minPrice; p -= step) raw.push(p);
  for (let p = anchor + step; p < maxPrice; p += step) raw.push(p);
  const lo = roundCents(minPrice);
  const hi = roundCents(maxPrice);
  const prices = expandGrid(raw).filter((p) => p >= lo && p <= hi);
  if (product.maxDailyChange !== null) fillGaps(prices, product.maxDailyChange);
  return prices;
}

/** Inserts cents-rounded midpoints until every step of the ascending grid is within the max daily change. */
function fillGaps(prices: number[], limit: number): void {
  for (let i = 0; i + 1 < prices.length; ) {
    const lo = prices[i] ?? 0;
    const hi = prices[i + 1] ?? 0;
    const mid = roundCents((lo + hi) / 2);
    // A one-cent step cannot be split: the problem's validation reports it when a policy is trained on it.
    if (hi / lo - 1 <= limit || !(mid > lo && mid < hi)) {
      i++;
      continue;
    }
    prices.splice(i + 1, 0, mid);
  }
}
