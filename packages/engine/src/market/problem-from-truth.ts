import { addDays, weekdayOf } from "../base/calendar.js";
import { at } from "../base/checked-index.js";
import type { PricingProblem } from "../problem/pricing-problem.js";
import { buildProblem, type ProblemSetup } from "../problem/problem-setup.js";
import { type TrueDemand, trueRate } from "./true-demand.js";

/** The pricing problem under the TRUE demand: the market side, against which every policy is evaluated. */
export function problemFromTruth(truth: TrueDemand, setup: ProblemSetup): PricingProblem {
  const weekdays = Array.from({ length: setup.horizon }, (_, t) => weekdayOf(addDays(setup.startDate, t)));
  return buildProblem(setup, (day, price) => trueRate(truth, at(weekdays, day), day, price));
}
