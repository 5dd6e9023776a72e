import { roundToMinor } from "./currency.js";
import { withinDailyChange } from "./daily-change.js";
import {
  nearestPrintable,
  type PriceFormat,
  priceFormat,
  printableAtOrAbove,
  printableAtOrBelow,
} from "./price-format.js";

/**
 * A price grid: evenly spaced `{min, max, step}` (inclusive) or an explicit ascending list, in currency units (the
 * shape of the scenario schema's `PriceGridSchema`, declared here so this base module depends on nothing).
 */
export type PriceGrid = { readonly min: number; readonly max: number; readonly step: number } | number[];

/** Expands a grid spec into ascending, de-duplicated prices rounded to `currency`'s minor unit. */
export function expandGrid(grid: PriceGrid, currency: string): number[] {
  let prices: number[];
  if (Array.isArray(grid)) {
    prices = grid.map((p) => roundToMinor(p, currency));
  } else {
    if (grid.min > grid.max) throw new Error("price grid min above max");
    const n = Math.floor((grid.max - grid.min) / grid.step + 1e-9);
    if (n > 10_000) throw new Error("price grid has more than 10000 prices");
    prices = [];
    for (let i = 0; i <= n; i++) prices.push(roundToMinor(grid.min + i * grid.step, currency));
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
  /** ISO 4217 code: every grid price is on its minor unit. */
  readonly currency: string;
  /** The product's price endings (DESIGN §11); absent, null or empty: every minor unit is printable. */
  readonly endings?: readonly string[] | null;
}

/** Thrown where a product's guardrails admit no printable price (DESIGN §11: refused at import). */
export class NoPrintablePriceError extends RangeError {}

/** The lowest and highest printable price inside [minPrice, maxPrice]; throws `NoPrintablePriceError` without one. */
export function printableRange(format: PriceFormat, minPrice: number, maxPrice: number): [number, number] {
  const lo = printableAtOrAbove(format, minPrice);
  const hi = printableAtOrBelow(format, maxPrice);
  if (hi === null || lo > hi + 1e-9) {
    throw new NoPrintablePriceError(
      `no printable price (${format.currency}) lies between the guardrails ${minPrice} and ${maxPrice}`,
    );
  }
  return [lo, hi];
}

/**
 * The price grid of a catalogue product, the one used by the API and the benchmarks: steps of
 * `CATALOG_GRID_STEP` x base price around the base price, each moved to the nearest printable price, plus the
 * lowest and highest printable price inside the guardrails; where one step is more than the max daily change,
 * printable prices nearest the midpoints fill the gap (so the policy can always move), until no printable price
 * lies between two neighbours (one minor unit without endings).
 */
export function catalogGrid(product: CatalogPrices): number[] {
  const { basePrice: base, minPrice, maxPrice } = product;
  if (minPrice > maxPrice) throw new RangeError("price grid min above max");
  if (!(base > 0) || !(minPrice > 0)) throw new RangeError("price grid needs positive base and min prices");
  const format = priceFormat(product.currency, product.endings);
  const [lo, hi] = printableRange(format, minPrice, maxPrice);
  const step = CATALOG_GRID_STEP * base;
  const anchor = Math.min(maxPrice, Math.max(minPrice, base));
  const raw = [lo, hi, anchor];
  for (let p = anchor - step; p > minPrice; p -= step) raw.push(p);
  for (let p = anchor + step; p < maxPrice; p += step) raw.push(p);
  const snapped = raw.flatMap((p) => {
    const q = nearestPrintable(format, p, lo, hi);
    return q === null ? [] : [q];
  });
  const prices = [...new Set(snapped)].sort((a, b) => a - b);
  if (product.maxDailyChange !== null) fillGaps(prices, product.maxDailyChange, format);
  return prices;
}

/** Inserts the printable prices nearest the midpoints until every step of the ascending grid is within the limit. */
function fillGaps(prices: number[], limit: number, format: PriceFormat): void {
  const unit = 10 ** -format.digits;
  for (let i = 0; i + 1 < prices.length; ) {
    const lo = prices[i] ?? 0;
    const hi = prices[i + 1] ?? 0;
    // A step with no printable price inside cannot be split: the plan lets the ending win (DESIGN §11).
    const mid = withinDailyChange(lo, hi, limit)
      ? null
      : nearestPrintable(format, (lo + hi) / 2, lo + unit, hi - unit);
    if (mid === null || !(mid > lo && mid < hi)) {
      i++;
      continue;
    }
    prices.splice(i + 1, 0, mid);
  }
}

/** The largest step of an ascending grid, as a fraction of its lower price (0 for one price). */
export function widestGridStep(prices: readonly number[]): number {
  let widest = 0;
  for (let i = 1; i < prices.length; i++)
    widest = Math.max(widest, (prices[i] ?? 0) / (prices[i - 1] ?? 1) - 1);
  return widest;
}
