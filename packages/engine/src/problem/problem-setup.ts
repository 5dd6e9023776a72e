import { withinDailyChange } from "../base/daily-change.js";
import { insideGuardrails } from "../base/guardrails.js";
import type { PricingProblem } from "./pricing-problem.js";

/**
 * Everything about a product's selling problem except its demand: combined with a demand-rate function (true or
 * fitted) it becomes a `PricingProblem`. Prices in currency units.
 */
export type ProblemSetup = Omit<PricingProblem, "rate">;

/**
 * Builds a `PricingProblem` whose rates are tabulated once (day x grid price) from `rateAt(day, price)` in units
 * per day, so that solvers can call `rate` in their inner loops for free.
 */
export function buildProblem(
  setup: ProblemSetup,
  rateAt: (day: number, price: number) => number,
): PricingProblem {
  validateSetup(setup);
  const n = setup.prices.length;
  const table = new Float64Array(setup.horizon * n);
  for (let t = 0; t < setup.horizon; t++) {
    for (let i = 0; i < n; i++) {
      const r = rateAt(t, setup.prices[i] ?? Number.NaN);
      if (!Number.isFinite(r) || r < 0) {
        throw new Error(`demand rate for ${setup.productId} on day ${t} at ${setup.prices[i]} is ${r}`);
      }
      table[t * n + i] = r;
    }
  }
  return {
    ...setup,
    prices: [...setup.prices],
    rate(day: number, priceIndex: number): number {
      return table[day * n + priceIndex] ?? 0;
    },
  };
}

/**
 * A problem whose demand is already a table on its own grid, `rates[day * prices + priceIndex]` (a policy's fitted
 * model). A missing entry fails `buildProblem`'s rate check rather than reading as zero demand.
 */
export function problemFromRates(setup: ProblemSetup, rates: ArrayLike<number>): PricingProblem {
  const n = setup.prices.length;
  // A map, not `indexOf` per entry (days x prices^2): a policy's rule fallbacks are rebuilt for every company of
  // the nightly batch, where this scan was ~15 ms a company. The grid is strictly ascending, so indices agree.
  const index = new Map(setup.prices.map((price, i) => [price, i]));
  return buildProblem(setup, (day, price) => rates[day * n + (index.get(price) ?? -1)] ?? Number.NaN);
}

function validateSetup(s: ProblemSetup): void {
  const fail = (why: string): never => {
    throw new Error(`invalid pricing problem for ${s.productId}: ${why}`);
  };
  if (!Number.isInteger(s.horizon) || s.horizon < 1) fail("horizon must be a positive integer");
  if (s.prices.length === 0) fail("empty price grid");
  if (!(s.minPrice <= s.maxPrice)) fail("min_price above max_price");
  for (let i = 0; i < s.prices.length; i++) {
    const p = s.prices[i] ?? Number.NaN;
    if (!insideGuardrails(p, s)) fail(`grid price ${p} outside the guardrails`);
    if (i > 0 && !(p > (s.prices[i - 1] ?? Number.NaN))) fail("grid prices must be strictly ascending");
  }
  if (s.stock !== null && (!Number.isInteger(s.stock) || s.stock < 0)) fail("stock must be a whole number");
  if (s.maxDailyChange !== null) {
    const initial = s.initialPrice ?? fail("max_daily_change needs an initial price");
    for (let i = 1; i < s.prices.length; i++) {
      if (!withinDailyChange(s.prices[i - 1] ?? Number.NaN, s.prices[i] ?? Number.NaN, s.maxDailyChange)) {
        fail(`grid step ${s.prices[i - 1]} -> ${s.prices[i]} is larger than the max daily change`);
      }
    }
    const limit = s.maxDailyChange;
    if (!s.prices.some((p) => withinDailyChange(initial, p, limit))) {
      fail("no grid price is reachable from the initial price");
    }
  }
}
