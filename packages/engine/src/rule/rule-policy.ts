import { dayNumber, weekdayOfDay } from "../base/calendar.js";
import { at } from "../base/checked-index.js";
import { nearestAllowedIndex } from "../problem/action-range.js";
import type { PricingProblem, ProductPolicy } from "../problem/pricing-problem.js";
import { type RuleParams, rulePrice } from "./rule-price.js";

/**
 * The rule fallback as a `ProductPolicy` on `problem`: the rule price snapped to the nearest grid price that the
 * max daily change allows. It never returns SHUTOFF.
 */
export function rulePolicy(problem: PricingProblem, params: RuleParams): ProductPolicy {
  // Day numbers, not a date string per day: a policy's rule fallbacks are built for every company of the nightly batch.
  const first = dayNumber(problem.startDate);
  const weekdays = Array.from({ length: problem.horizon }, (_, t) => weekdayOfDay(first + t));
  // remaining[t][d]: weekdays d left from day t on, so that each call is O(1).
  const remaining: number[][] = [];
  let counts = [0, 0, 0, 0, 0, 0, 0];
  for (let t = problem.horizon - 1; t >= 0; t--) {
    counts = [...counts];
    const weekday = at(weekdays, t);
    counts[weekday] = at(counts, weekday) + 1;
    remaining[t] = counts;
  }
  const guardrails = { minPrice: problem.minPrice, maxPrice: problem.maxPrice };
  return (day, stock, prevPriceIndex) => {
    const d = Math.max(0, Math.min(problem.horizon - 1, day));
    const price = rulePrice(
      params,
      {
        weekday: at(weekdays, d),
        stockLeft: Number.isFinite(stock) ? stock : null,
        remainingWeekdayCounts: at(remaining, d),
      },
      guardrails,
    );
    return nearestAllowedIndex(problem, prevPriceIndex, price);
  };
}
