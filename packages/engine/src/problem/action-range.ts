import { withinDailyChange } from "../base/daily-change.js";
import { nearestPriceIndex } from "../base/nearest-price.js";
import type { PricingProblem } from "./pricing-problem.js";

/** Inclusive range of grid indexes allowed after a price; the grid is ascending so the set is contiguous. */
export interface IndexRange {
  readonly lo: number;
  readonly hi: number;
}

/**
 * The grid indexes a policy may choose when the previous price was `prices[prevPriceIndex]` (or the problem's
 * initial price when `prevPriceIndex` is -1). Without a max daily change every index is allowed.
 */
export function allowedRange(problem: PricingProblem, prevPriceIndex: number): IndexRange {
  const n = problem.prices.length;
  const limit = problem.maxDailyChange;
  if (limit === null) return { lo: 0, hi: n - 1 };
  const prev = prevPriceIndex >= 0 ? problem.prices[prevPriceIndex] : problem.initialPrice;
  if (prev === undefined || prev === null) return { lo: 0, hi: n - 1 };
  const beyond = (i: number) => !withinDailyChange(prev, problem.prices[i] ?? Number.NaN, limit);
  let lo = 0;
  while (lo < n && beyond(lo) && (problem.prices[lo] ?? Number.NaN) < prev) lo++;
  let hi = n - 1;
  while (hi >= 0 && beyond(hi) && (problem.prices[hi] ?? Number.NaN) > prev) hi--;
  return { lo, hi };
}

/** Whether `action` is a legal choice (a grid index inside the allowed range, or SHUTOFF when allowed). */
export function isAllowed(problem: PricingProblem, prevPriceIndex: number, action: number): boolean {
  if (action === -1) return problem.shutoff;
  if (!Number.isInteger(action)) return false;
  const { lo, hi } = allowedRange(problem, prevPriceIndex);
  return action >= lo && action <= hi;
}

/** The grid index whose price is closest to `price` within the allowed range (clamping outside it). */
export function nearestAllowedIndex(problem: PricingProblem, prevPriceIndex: number, price: number): number {
  const { lo, hi } = allowedRange(problem, prevPriceIndex);
  return nearestPriceIndex(problem.prices, price, lo, hi);
}
