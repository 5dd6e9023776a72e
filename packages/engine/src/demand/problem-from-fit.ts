import { addDays, weekdayOf } from "../base/calendar.js";
import { at } from "../base/checked-index.js";
import type { PricingProblem } from "../problem/pricing-problem.js";
import { buildProblem, type ProblemSetup } from "../problem/problem-setup.js";
import { type FittedDemand, fittedRate } from "./fit-demand.js";

/** The pricing problem as the product believes it to be: the setup under the fitted demand of its product. */
export function problemFromFit(fit: FittedDemand, setup: ProblemSetup): PricingProblem {
  const product = fit.products.get(setup.productId);
  if (!product) throw new Error(`no fitted demand for product ${setup.productId}`);
  const weekdays = Array.from({ length: setup.horizon }, (_, t) => weekdayOf(addDays(setup.startDate, t)));
  return buildProblem(setup, (day, price) => fittedRate(product, at(weekdays, day), price));
}
