import { addDays, weekdayOf } from "../base/calendar.js";
import { at } from "../base/checked-index.js";
import type { PricingProblem } from "../problem/pricing-problem.js";
import { buildProblem, type ProblemSetup } from "../problem/problem-setup.js";
import { type FittedDemand, fittedLaw, fittedRate } from "./fit-demand.js";

/**
 * The pricing problem as the product believes it to be: the setup under the fitted demand of its product, its daily
 * demand the fit's NB2 (a Bernoulli setup, one unit a day at most, stays Bernoulli).
 */
export function problemFromFit(fit: FittedDemand, setup: ProblemSetup): PricingProblem {
  const product = fit.products.get(setup.productId);
  if (!product) throw new Error(`no fitted demand for product ${setup.productId}`);
  const weekdays = Array.from({ length: setup.horizon }, (_, t) => weekdayOf(addDays(setup.startDate, t)));
  const law = setup.distribution === "bernoulli" ? setup : fittedLaw(product);
  return buildProblem(
    { ...setup, distribution: law.distribution, overdispersion: law.overdispersion },
    (day, price) => fittedRate(product, at(weekdays, day), price),
  );
}
