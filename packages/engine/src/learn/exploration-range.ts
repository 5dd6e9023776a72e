import { nearestPriceIndex } from "../base/nearest-price.js";
/**
 * How far the online learner may price outside what the history has seen: `off` stays inside the observed price
 * range, `cautious` may go one grid price beyond the range of prices held for a week, or for `CONFIRM_DAYS` where
 * their sales confirm the model, so the range widens by one grid step per side and week, faster while the new
 * prices sell as the model said (a 10 % step measured worse on the misspecified markets of `bench:closed-loop`);
 * `free` prices anywhere on the grid.
 */
export type Exploration = "off" | "cautious" | "free";

/** Days of sales at a price before `cautious` counts it as held and allows the next step beyond it. */
export const SEEN_DAYS = 7;

/** Days of sales at a price before `cautious` counts it as held where they confirm the model. */
export const CONFIRM_DAYS = 2;

/** Days the product sold at each price (cents-exact), the input of the exploration range. */
export type PriceDays = ReadonlyMap<number, number>;

/**
 * The inclusive index range of `grid` (ascending) the learner may choose from. With no history the observed range
 * is `basePrice` alone. `confirmed` says whether a price's sales agree with the demand model.
 */
export function explorationRange(
  grid: readonly number[],
  exploration: Exploration,
  priceDays: PriceDays,
  basePrice: number,
  confirmed: (price: number) => boolean = () => false,
): { readonly lo: number; readonly hi: number } {
  const last = grid.length - 1;
  if (exploration === "free" || last < 0) return { lo: 0, hi: Math.max(0, last) };
  // The range of every price sold and of those held, folded in one pass (`priceRange`'s Math.min / max, whose
  // order does not matter): the entries copied, filtered and mapped were ~1 MB a plan for the collector.
  const range = {
    lo: Number.POSITIVE_INFINITY,
    hi: Number.NEGATIVE_INFINITY,
    seenLo: Number.POSITIVE_INFINITY,
    seenHi: Number.NEGATIVE_INFINITY,
  };
  priceDays.forEach((days, price) => {
    range.lo = Math.min(range.lo, price);
    range.hi = Math.max(range.hi, price);
    if (days >= SEEN_DAYS || (days >= CONFIRM_DAYS && confirmed(price))) {
      range.seenLo = Math.min(range.seenLo, price);
      range.seenHi = Math.max(range.seenHi, price);
    }
  });
  const sold = range.lo <= range.hi;
  const low = sold ? range.lo : basePrice;
  const high = sold ? range.hi : basePrice;
  const inside = span(grid, low, high);
  if (exploration === "off") return inside;
  const held = range.seenLo <= range.seenHi ? span(grid, range.seenLo, range.seenHi) : span(grid, low, high);
  return {
    lo: Math.max(0, Math.min(inside.lo, held.lo - 1)),
    hi: Math.min(last, Math.max(inside.hi, held.hi + 1)),
  };
}

/** The grid indices inside [lo, hi]; the nearest grid price when none is. */
function span(grid: readonly number[], lo: number, hi: number): { lo: number; hi: number } {
  let a = grid.findIndex((p) => p >= lo - 1e-9);
  let b = grid.findLastIndex((p) => p <= hi + 1e-9);
  if (a < 0) a = grid.length - 1;
  if (b < 0) b = 0;
  if (a > b) {
    const nearest = nearestPriceIndex(grid, (lo + hi) / 2, b, a);
    return { lo: nearest, hi: nearest };
  }
  return { lo: a, hi: b };
}
