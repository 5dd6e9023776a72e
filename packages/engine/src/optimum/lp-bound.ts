import type { PricingProblem } from "../problem/pricing-problem.js";
import { expectedDemand } from "../problem/sales-distribution.js";

export interface LpBound {
  /** Upper bound on the expected margin of any policy (fluid relaxation), currency units. */
  readonly value: number;
  readonly perPeriod: number;
  /** Optimal shadow price of a unit of stock (0 when stock does not bind). */
  readonly stockShadowPrice: number;
}

/**
 * The fluid LP bound: max sum_t sum_a x_ta r_ta subject to sum_t sum_a x_ta d_ta <= stock and sum_a x_ta <= 1,
 * solved exactly through its one-dimensional Lagrangian dual in the stock multiplier, which is convex and
 * piecewise linear. With finite stock x_ta is the probability of charging a while still in stock, so the sum may
 * stay below 1 even without a shutoff action (a stock-out is an implicit one); with unlimited stock and no
 * shutoff it is exactly 1. The max daily change is relaxed (the bound stays an upper bound).
 */
export function lpBound(problem: PricingProblem): LpBound {
  const T = problem.horizon;
  const A = problem.prices.length;
  const demand = new Float64Array(T * A);
  for (let t = 0; t < T; t++) {
    for (let a = 0; a < A; a++) demand[t * A + a] = expectedDemand(problem, problem.rate(t, a));
  }
  const dual = (mu: number): number => {
    let total = problem.stock === null ? 0 : mu * problem.stock;
    for (let t = 0; t < T; t++) {
      let best = problem.shutoff || problem.stock !== null ? 0 : Number.NEGATIVE_INFINITY;
      for (let a = 0; a < A; a++) {
        const v =
          (demand[t * A + a] ?? Number.NaN) * ((problem.prices[a] ?? Number.NaN) - problem.unitCost - mu);
        if (v > best) best = v;
      }
      total += best;
    }
    return total;
  };
  if (problem.stock === null) {
    const value = dual(0);
    return { value, perPeriod: value / T, stockShadowPrice: 0 };
  }
  // Golden-section search: exact enough for a convex piecewise-linear function after 200 steps.
  let lo = 0;
  let hi = Math.max(...problem.prices) + 1;
  const g = (Math.sqrt(5) - 1) / 2;
  let x1 = hi - g * (hi - lo);
  let x2 = lo + g * (hi - lo);
  let f1 = dual(x1);
  let f2 = dual(x2);
  for (let i = 0; i < 200; i++) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = dual(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = dual(x2);
    }
  }
  let mu = (lo + hi) / 2;
  let value = dual(mu);
  const atZero = dual(0);
  if (atZero <= value) {
    mu = 0;
    value = atZero;
  }
  return { value, perPeriod: value / T, stockShadowPrice: mu };
}
