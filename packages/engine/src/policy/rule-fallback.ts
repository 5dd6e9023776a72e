import { nearestPriceIndex } from "../base/nearest-price.js";
import { allowedRange } from "../problem/action-range.js";
import type { PricingProblem, ProductPolicy } from "../problem/pricing-problem.js";
import { problemFromRates } from "../problem/problem-setup.js";
import { rulePolicy } from "../rule/rule-policy.js";
import type { RuleParams } from "../rule/rule-price.js";
import type { ProductSetup } from "./training-input.js";

/**
 * The rule, priced exactly as `rulePolicy` prices it, for a product whose learned policy was not trusted: a grid
 * index per state, with the previous price given as a price (possibly off the grid) like the RL policy's states.
 */
export class RuleFallback {
  readonly params: RuleParams;
  readonly problem: PricingProblem;
  readonly policy: ProductPolicy;

  constructor(setup: ProductSetup, rates: Float32Array, params: RuleParams) {
    this.params = params;
    this.problem = problemFromRates(setup, rates);
    this.policy = rulePolicy(this.problem, params);
  }

  /** Grid index on `day` with `stock` left (Infinity when unlimited) after `prevPrice` (null: the initial price). */
  index(day: number, stock: number, prevPrice: number | null): number {
    const p = this.problem;
    if (p.maxDailyChange === null || prevPrice === null) return this.policy(day, stock, -1);
    const onGrid = p.prices.findIndex((x) => Math.abs(x - prevPrice) <= 1e-9 * x);
    if (onGrid >= 0) return this.policy(day, stock, onGrid);
    // An off-grid last price (a partner's own): the same rule with that price as the one in force.
    const shifted: PricingProblem = { ...p, initialPrice: prevPrice };
    const { lo, hi } = allowedRange(shifted, -1);
    if (lo > hi) {
      // Nothing on the grid is reachable within the limit: the closest price, as the RL policy does.
      return nearestPriceIndex(p.prices, prevPrice);
    }
    return rulePolicy(shifted, this.params)(day, stock, -1);
  }
}
