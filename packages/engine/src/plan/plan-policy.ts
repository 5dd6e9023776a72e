import { addDays, daysBetween, weekdayOf } from "../base/calendar.js";
import { nearestAllowedIndex } from "../problem/action-range.js";
import type { PricingProblem, ProductPolicy } from "../problem/pricing-problem.js";
import type { ActivePolicy, PlanAdvisor } from "./company-plan.js";
import { boundPrice, type RuleDay, ruleDay, ruleRawPrice } from "./day-price.js";
import { type ProductState, seasonLastDay } from "./product-state.js";

export interface PlanPolicyInput {
  /** The product as the plan sees it on the problem's start date. */
  readonly state: ProductState;
  /** The problem evaluated: its grid, start date, initial price and max daily change. */
  readonly problem: PricingProblem;
  readonly active: ActivePolicy;
  /** Caps the policy's prices as the served plan does (the exploration range); none: the policy's own. */
  readonly advisor?: Pick<PlanAdvisor, "cap">;
}

/**
 * The served policy of one product for exact evaluation: on day t with `stock` left after the grid price
 * `prevPriceIndex`, the first day of the plan `planPrices` makes on that date for that state (what the nightly
 * batch serves each day), snapped to the nearest grid price the max daily change allows. The policy's decisions
 * are batched per day over stock levels and kept, so evaluating every state stays fast.
 */
export function planPolicy(input: PlanPolicyInput): ProductPolicy {
  const { state, problem, active, advisor } = input;
  const policy = active.policy;
  const index = policy?.findProduct(state.product.product_id);
  const decide = policy !== null && index !== undefined ? policy.decider(index) : null;
  const days: { date: string; rule: RuleDay; policyDay: number | undefined }[] = [];
  const dayAt = (t: number) => {
    let d = days[t];
    if (d === undefined) {
      const date = addDays(problem.startDate, t);
      d = {
        date,
        rule: ruleDay(weekdayOf(date), daysBetween(date, seasonLastDay(state, date)) + 1),
        policyDay:
          policy !== null && index !== undefined && date >= policy.startDate
            ? policy.dayOf(index, date)
            : undefined,
      };
      days[t] = d;
    }
    return d;
  };
  const rulePrice = (rule: RuleDay, stock: number, prev: number | null) =>
    boundPrice(state, ruleRawPrice(state, rule, stock), prev);
  return (t, stock, prevPriceIndex) => {
    const day = dayAt(t);
    const prev =
      prevPriceIndex >= 0
        ? (problem.prices[prevPriceIndex] ?? null)
        : (problem.initialPrice ?? state.lastPrice);
    let price: number | null = null;
    if (decide !== null && policy !== null && index !== undefined && day.policyDay !== undefined) {
      const pick = decide(day.policyDay, stock, prev);
      const chosen = pick >= 0 ? policy.priceAt(index, pick) : null;
      if (chosen !== null) {
        const capped = advisor ? advisor.cap(state, chosen, rulePrice(day.rule, stock, prev)) : chosen;
        price = boundPrice(state, capped, prev);
      }
    }
    price ??= rulePrice(day.rule, stock, prev);
    return nearestAllowedIndex(problem, prevPriceIndex, price);
  };
}
