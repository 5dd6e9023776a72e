import { dayNumber } from "../base/calendar.js";
import type { PricingProblem } from "../problem/pricing-problem.js";
import { buildProblem, type ProblemSetup } from "../problem/problem-setup.js";
import { type FittedDemand, fittedLaw, fittedRateOn } from "./fit-demand.js";

/**
 * The pricing problem as the product believes it to be: the setup under the fitted demand of its product, its daily
 * demand the fit's NB2 (a Bernoulli setup, one unit a day at most, stays Bernoulli).
 */
export function problemFromFit(fit: FittedDemand, setup: ProblemSetup): PricingProblem {
  const product = fit.products.get(setup.productId);
  if (!product) throw new Error(`no fitted demand for product ${setup.productId}`);
  const first = dayNumber(setup.startDate);
  const law = setup.distribution === "bernoulli" ? setup : fittedLaw(product);
  return buildProblem(
    { ...setup, distribution: law.distribution, overdispersion: law.overdispersion },
    (day, price) => fittedRateOn(product, first + day, price),
  );
}
