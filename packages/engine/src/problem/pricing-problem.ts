import type { DemandDistribution, DemandFamily } from "./sales-distribution.js";

/**
 * The single-product pricing problem that every solver in the engine speaks: the exact optimum (DP), the exact
 * policy evaluator, the rule fallback and the RL policy. It is built either from a market's true demand (the
 * yardstick) or from a demand model fitted to history (what the product actually knows).
 *
 * Products of a company are independent (no cross-price effects), so a company is a list of these.
 */
export interface PricingProblem extends DemandDistribution {
  readonly productId: string;
  /** Number of selling days; day 0 is `startDate`. */
  readonly horizon: number;
  /** YYYY-MM-DD of day 0. */
  readonly startDate: string;
  /** Candidate prices in currency units, ascending, all inside [minPrice, maxPrice]. */
  readonly prices: readonly number[];
  readonly minPrice: number;
  readonly maxPrice: number;
  /** When true, the action SHUTOFF (no sale that day, rate 0) is allowed in addition to the grid. */
  readonly shutoff: boolean;
  readonly unitCost: number;
  /** Units on hand at day 0; null means unlimited. */
  readonly stock: number | null;
  /** Largest allowed |p_t / p_{t-1} - 1|, or null for none. */
  readonly maxDailyChange: number | null;
  /** Price in force before day 0; required when maxDailyChange is set. */
  readonly initialPrice: number | null;
  /**
   * The law of a day's demand around `rate` (`DemandDistribution`): Poisson, negative binomial with its
   * `overdispersion`, or Bernoulli (one unit with probability min(rate, 1)); units sold are capped by the stock.
   */
  readonly distribution: DemandFamily;
  /** Expected demand in units per day on `day` (0-based) at grid price `prices[priceIndex]`. */
  rate(day: number, priceIndex: number): number;
}

/** Action index meaning "no sale today" (only when `shutoff` is true). */
export const SHUTOFF = -1;

/**
 * A policy for one product: the grid index to charge on `day` with `stock` units left (Infinity when unlimited)
 * and `prevPriceIndex` the index charged the day before (-1 before day 0 / unknown). Must return SHUTOFF or an
 * index into `prices` that respects `maxDailyChange`.
 */
export type ProductPolicy = (day: number, stock: number, prevPriceIndex: number) => number;
