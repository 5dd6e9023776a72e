import { at } from "../base/checked-index.js";
import { allowedRange } from "../problem/action-range.js";
import type { PricingProblem, ProductPolicy } from "../problem/pricing-problem.js";
import { demandPmf, expectedCapped, POISSON } from "../problem/sales-distribution.js";
import { evaluatePolicy } from "./evaluate-policy.js";

export interface BestConstantResult {
  /** Grid index of the best single price. */
  readonly priceIndex: number;
  readonly value: number;
  readonly policy: ProductPolicy;
}

/**
 * The policy "charge price a every day" (moving toward it as fast as the max daily change allows), for a given
 * grid index: the classic static-price baseline.
 */
export function constantPricePolicy(problem: PricingProblem, priceIndex: number): ProductPolicy {
  return (_day, _stock, prevPriceIndex) => {
    const { lo, hi } = allowedRange(problem, prevPriceIndex);
    return Math.max(lo, Math.min(hi, priceIndex));
  };
}

/** The best constant price for `problem`, chosen by exact evaluation of every grid price. */
export function bestConstantPolicy(problem: PricingProblem): BestConstantResult {
  let best: BestConstantResult | null = null;
  for (let a = 0; a < problem.prices.length; a++) {
    const policy = constantPricePolicy(problem, a);
    const value = constantValue(problem, a) ?? evaluatePolicy(problem, policy).value;
    if (!best || value > best.value) best = { priceIndex: a, value, policy };
  }
  if (best === null) throw new RangeError("empty price grid");
  return best;
}

/**
 * Closed form for Poisson demand at one fixed price: total demand over the horizon is Poisson(sum of rates) and
 * the units sold are min(total, stock). Null when it does not apply (Bernoulli, negative binomial days whose sum is
 * no negative binomial, or a ramp under max daily change).
 */
function constantValue(problem: PricingProblem, a: number): number | null {
  if (problem.distribution !== "poisson" || problem.maxDailyChange !== null) return null;
  let total = 0;
  for (let t = 0; t < problem.horizon; t++) total += problem.rate(t, a);
  const margin = at(problem.prices, a) - problem.unitCost;
  if (problem.stock === null) return total * margin;
  return expectedCapped(demandPmf(POISSON, total), problem.stock) * margin;
}
