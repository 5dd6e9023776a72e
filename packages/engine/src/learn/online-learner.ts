import seedrandom from "seedrandom";
import { addDays, weekdayOf } from "../base/calendar.js";
import { roundCents } from "../base/price-grid.js";
import { type FittedDemand, type FittedProduct, fitDemand, type ProductHint } from "../demand/fit-demand.js";
import { type DemandDistribution, demandPmf, expectedDemand } from "../demand/sales-distribution.js";
import type { SalesRow } from "../market/generate-market.js";
import type { Uniform } from "../market/sampling.js";
import type { LearnedPrice, OnlinePricer } from "../plan/company-plan.js";
import type { ProductState } from "../plan/product-state.js";
import { type Exploration, explorationRange } from "./exploration-range.js";
import { fluidChoice } from "./fluid-allocation.js";
import { sampleGamma, sampleNormal } from "./posterior-draws.js";

export interface OnlineLearnerInput {
  /** Sales history before `today`, every product's rows (the learner's own prices' sales included). */
  readonly history: readonly SalesRow[];
  readonly products: readonly ProductHint[];
  readonly exploration?: Exploration;
  /** Seeds every posterior draw, together with the product and date priced. */
  readonly seed: string | number;
  readonly distribution?: DemandDistribution;
  /** Prices the learner chooses from per product; default the product state's catalogue grid. */
  readonly grids?: ReadonlyMap<string, readonly number[]>;
  readonly modelId?: string;
}

export interface OnlineLearner extends OnlinePricer {
  /** The demand fit the learner's posterior is centred on (null units where a product has no history). */
  readonly fit: FittedDemand;
}

/** Weight, in days of sales, of the fitted model as the prior of each price's own rate. */
const PRIOR_DAYS = 4;
/** Pseudo-units every price's rate starts from, so a price the fit says never sells can still be tried. */
const PRIOR_UNITS = 0.5;
/**
 * Largest standard deviation of a drawn parameter: a fit of a day or two without sales has an intercept error in
 * the thousands, which says "unknown" (the per-price posteriors take over), not "rates up to e^1000".
 */
const MAX_PARAMETER_SD = 1;
/** Posterior draws behind each price's p10 / p90. */
const QUANTILE_DRAWS = 48;

interface PriceSales {
  /** Days sold at the price (stock-outs left out) weighted by the fitted weekday volume, and the units sold. */
  exposure: number;
  units: number;
  days: number;
}

/**
 * The closed loop's learner: Thompson sampling over a demand posterior. The fitted constant-elasticity model
 * (mean and standard errors) is the prior of every grid price's rate, and each price's own sales update it
 * (Gamma-Poisson), so where the fitted family is wrong the prices it has tried still learn their true rate.
 * Every price decision draws one model from the posterior and prices by its fluid plan of the rest of the season
 * (`fluidChoice`), inside the exploration range. Products with no history price by the rule (null).
 */
export function onlineLearner(input: OnlineLearnerInput): OnlineLearner {
  const exploration = input.exploration ?? "cautious";
  const distribution = input.distribution ?? "poisson";
  const fit = fitDemand(input.history, input.products);
  const sales = new Map<string, Map<number, PriceSales>>();
  for (const r of input.history) {
    const fitted = fit.products.get(r.product_id);
    if (fitted === undefined) continue;
    let byPrice = sales.get(r.product_id);
    if (byPrice === undefined) {
      byPrice = new Map();
      sales.set(r.product_id, byPrice);
    }
    const key = roundCents(r.price);
    const s = byPrice.get(key) ?? { exposure: 0, units: 0, days: 0 };
    s.days++;
    // A day that sold out only bounds demand from below: it counts as seen, not as a rate observation.
    if (!(r.stock_on_hand !== null && r.units_sold >= r.stock_on_hand)) {
      s.exposure += fitted.weekdayFactors[weekdayOf(r.date)] ?? 1;
      s.units += r.units_sold;
    }
    byPrice.set(key, s);
  }

  return {
    fit,
    modelId: input.modelId ?? "online-learner",
    priceOn(state: ProductState, date: string, day: number, stock: number): LearnedPrice | null {
      const id = state.product.product_id;
      const fitted = fit.products.get(id);
      if (fitted === undefined) return null;
      const byPrice = sales.get(id) ?? new Map<number, PriceSales>();
      const grid = (input.grids?.get(id) ?? state.setup.prices).filter(
        (p) => p >= state.minPrice - 1e-9 && p <= state.maxPrice + 1e-9,
      );
      if (grid.length === 0) return null;
      const priceDays = new Map([...byPrice].map(([p, s]) => [p, s.days]));
      const range = explorationRange(grid, exploration, priceDays, state.product.base_price);
      const prices = grid.slice(range.lo, range.hi + 1);
      const volumes = Array.from(
        { length: Math.max(1, state.setup.horizon - day) },
        (_, d) => fitted.weekdayFactors[weekdayOf(addDays(date, d))] ?? 1,
      );
      const rng: Uniform = seedrandom(`${input.seed}:${id}:${date}`);
      const unitCost = state.product.unit_cost ?? 0;
      const cap = (rate: number) => expectedDemand(distribution, rate);
      const choose = (rates: readonly number[], draw: boolean): number => {
        const c = fluidChoice({ prices, unitCost, sales: rates.map(cap), volumes, stock });
        const lower = draw ? rng() < c.lowerBidWeight : c.lowerBidWeight > 0.5;
        return lower ? c.lowerBidIndex : c.index;
      };
      const posterior = prices.map((p) => ratePosterior(fitted, byPrice.get(roundCents(p)), p));
      const mean = choose(
        posterior.map((g) => g.shape / g.rate),
        false,
      );
      const sampled = choose(drawRates(rng, fitted, prices, byPrice), true);
      const price = prices[sampled] ?? state.product.base_price;
      const volume = volumes[0] ?? 1;
      const units = unitsQuantiles(rng, posterior[sampled], volume, stock, distribution);
      const observed = [...priceDays.keys()];
      const outside =
        observed.length > 0 && (price < Math.min(...observed) - 1e-9 || price > Math.max(...observed) + 1e-9);
      return { price, ...units, exploratory: sampled !== mean || outside };
    },
  };
}

/** Gamma posterior of a price's rate at weekday volume 1 given the fit's mean rate there as the prior mean. */
function ratePosterior(
  fitted: FittedProduct,
  seen: PriceSales | undefined,
  price: number,
  shift = 0,
  elasticity = fitted.elasticity,
): { shape: number; rate: number } {
  const prior = fitted.baseRate * Math.exp(shift) * (price / fitted.referencePrice) ** -elasticity;
  return {
    shape: PRIOR_DAYS * prior + (seen?.units ?? 0) + PRIOR_UNITS,
    rate: PRIOR_DAYS + (seen?.exposure ?? 0),
  };
}

/** One posterior draw of every price's rate: the fitted model's parameters drawn, then each price's own sales. */
function drawRates(
  rng: Uniform,
  fitted: FittedProduct,
  prices: readonly number[],
  byPrice: ReadonlyMap<number, PriceSales>,
): number[] {
  const sd = (x: number) => Math.min(MAX_PARAMETER_SD, Number.isFinite(x) ? x : MAX_PARAMETER_SD);
  const elasticity = Math.max(0, fitted.elasticity + sd(fitted.stdErrors.elasticity) * sampleNormal(rng));
  const shift = sd(fitted.stdErrors.logIntercept) * sampleNormal(rng);
  return prices.map((p) => {
    const g = ratePosterior(fitted, byPrice.get(roundCents(p)), p, shift, elasticity);
    return sampleGamma(rng, g.shape, g.rate);
  });
}

/** Expected units and their 10th / 90th percentiles: posterior draws of the rate mixed with the sales noise. */
function unitsQuantiles(
  rng: Uniform,
  posterior: { shape: number; rate: number } | undefined,
  volume: number,
  stock: number,
  distribution: DemandDistribution,
): { expectedUnits: number; unitsP10: number; unitsP90: number } {
  if (posterior === undefined || stock <= 0) return { expectedUnits: 0, unitsP10: 0, unitsP90: 0 };
  const mass: number[] = [];
  for (let k = 0; k < QUANTILE_DRAWS; k++) {
    const pmf = demandPmf(distribution, volume * sampleGamma(rng, posterior.shape, posterior.rate));
    pmf.probs.forEach((p, j) => {
      const units = Math.min(stock, pmf.first + j);
      mass[units] = (mass[units] ?? 0) + p / QUANTILE_DRAWS;
    });
  }
  let expected = 0;
  let cdf = 0;
  let p10 = -1;
  let p90 = -1;
  mass.forEach((p, units) => {
    expected += units * p;
    cdf += p;
    if (p10 < 0 && cdf >= 0.1) p10 = units;
    if (p90 < 0 && cdf >= 0.9) p90 = units;
  });
  const top = mass.length - 1;
  return {
    expectedUnits: Math.round(expected * 10_000) / 10_000,
    unitsP10: Math.max(0, p10 < 0 ? top : p10),
    unitsP90: Math.max(0, p90 < 0 ? top : p90),
  };
}
