import {
  addDays,
  demandPmf,
  type Market,
  type MarketProduct,
  nearestAllowedIndex,
  type PricingProblem,
  type ProductState,
  problemFromTruth,
  productState,
  type SalesRow,
  SHUTOFF,
  sampleDemand,
  trueRate,
  unitsInterval,
  weekdayOf,
} from "@pricing/engine";
import seedrandom from "seedrandom";
import { catalogProductOf } from "./market-states.js";

/** What a policy serves for one product on one day: a price (or null = no sale) and, when it gives them, p10/p90. */
export interface ServedPrice {
  readonly price: number | null;
  readonly p10?: number;
  readonly p90?: number;
}

export interface SeasonDay {
  /** Days since the season start, and the date. */
  readonly day: number;
  readonly today: string;
  /** Every product's state as the API would build it today (catalogue row with today's stock, history so far). */
  readonly states: readonly ProductState[];
  /** Every sale so far, initial history first, sorted by date then product. */
  readonly history: readonly SalesRow[];
}

/** A policy playing one season: asked for today's prices each day, after yesterday's sales joined the history. */
export interface SeasonPricer {
  priceDay(day: SeasonDay): ReadonlyMap<string, ServedPrice>;
}

export interface SeasonOutcome {
  /** Realised margin, currency units, summed over products. */
  readonly value: number;
  /** Served prices outside the guardrails or beyond the max daily change. */
  readonly violations: number;
  /** Product-days with a p10/p90, and those whose realised units fell inside [p10, p90]. */
  readonly calibrated: number;
  readonly inside: number;
  /**
   * The same product-days' probability, under the true demand at the price served and the stock left, that the
   * units fall inside [p10, p90], summed: `inside` without the sales draws' noise (600 product-days still move it
   * by +-1.5 pp), so a band's coverage is judged on the band and not on the seeds.
   */
  readonly expectedInside: number;
  /**
   * The same, for the band the true demand itself gives (the engine's p10/p90 rule, `unitsInterval`, on the true law
   * at the true rate and stock): what no learning can improve on. Whole units put a lump of mass on each end, so it
   * holds above 80 % at small counts (about 83 % at 5 units a day).
   */
  readonly trueLawInside: number;
}

const PRICE_TOLERANCE = 0.005;

/**
 * Plays the season of `market` day by day: the pricer prices, the true demand draws each product's sales from
 * `seed` (Poisson, negative binomial or Bernoulli at the grid price served, one uniform a draw, capped by the stock), the stock falls, the day's rows join
 * the history. `history` replaces the market's own (e.g. [] to start from nothing).
 */
export function playSeason(
  market: Market,
  pricer: SeasonPricer,
  seed: string | number,
  history: readonly SalesRow[] = market.history,
): SeasonOutcome {
  const { scenario } = market;
  const rng = seedrandom(`${scenario.name}:${seed}:sales`);
  const rows = [...history];
  const lanes = market.products.map((product) => ({
    product,
    truth: problemFromTruth(product.truth, product.setup),
    stock: product.setup.stock ?? Number.POSITIVE_INFINITY,
    prevIndex: -1,
    prevPrice: product.setup.initialPrice,
  }));
  let value = 0;
  let violations = 0;
  let calibrated = 0;
  let inside = 0;
  let expectedInside = 0;
  let trueLawInside = 0;
  for (let day = 0; day < scenario.horizon; day++) {
    const today = addDays(scenario.start_date, day);
    const byProduct = new Map<string, SalesRow[]>();
    for (const r of rows) {
      const list = byProduct.get(r.product_id) ?? [];
      list.push(r);
      byProduct.set(r.product_id, list);
    }
    const states = lanes.map((lane) => stateOn(market, lane.product, lane.stock, byProduct, today, day));
    const served = pricer.priceDay({ day, today, states, history: rows });
    const dayRows: SalesRow[] = [];
    for (const lane of lanes) {
      const { product, truth } = lane;
      const s = served.get(product.productId);
      if (s === undefined) throw new Error(`no price for ${product.productId} on ${today}`);
      if (s.price !== null && breaksLimits(truth, s.price, lane.prevPrice)) violations++;
      const index =
        s.price === null && truth.shutoff
          ? SHUTOFF
          : nearestAllowedIndex(truth, lane.prevIndex, s.price ?? product.referencePrice);
      const price = index === SHUTOFF ? null : (truth.prices[index] ?? Number.NaN);
      const rate = price === null ? 0 : trueRate(product.truth, weekdayOf(today), day, price);
      const demand = sampleDemand(rng, product.setup, rate);
      const units = Math.min(demand, lane.stock);
      if (s.p10 !== undefined && s.p90 !== undefined) {
        calibrated++;
        if (units >= s.p10 && units <= s.p90) inside++;
        const sold = soldMass(product.setup, rate, lane.stock);
        expectedInside += massWithin(sold, s.p10, s.p90);
        const own = unitsInterval(sold);
        trueLawInside += massWithin(sold, own.unitsP10, own.unitsP90);
      }
      if (price !== null) {
        value += (price - product.unitCost) * units;
        dayRows.push({
          date: today,
          product_id: product.productId,
          price,
          units_sold: units,
          stock_on_hand: Number.isFinite(lane.stock) ? lane.stock : null,
        });
        lane.prevIndex = index;
        lane.prevPrice = price;
      }
      lane.stock -= units;
    }
    rows.push(...dayRows);
  }
  return { value, violations, calibrated, inside, expectedInside, trueLawInside };
}

/** P(min(D, stock) = units) for the day's true demand D at `rate`, by units (counts with no mass left out). */
function soldMass(law: MarketProduct["setup"], rate: number, stock: number): number[] {
  const { first, probs } = demandPmf(law, rate);
  const mass: number[] = [];
  for (let j = 0; j < probs.length; j++) {
    const units = Math.min(first + j, stock);
    mass[units] = (mass[units] ?? 0) + (probs[j] ?? 0);
  }
  return mass;
}

function massWithin(mass: readonly number[], p10: number, p90: number): number {
  let p = 0;
  mass.forEach((m, units) => {
    if (units >= p10 && units <= p90) p += m;
  });
  return p;
}

/** The product's state today as the API builds it: the catalogue row carries today's stock (updated today). */
function stateOn(
  market: Market,
  product: MarketProduct,
  stock: number,
  history: ReadonlyMap<string, SalesRow[]>,
  today: string,
  day: number,
): ProductState {
  const catalogue = catalogProductOf(market, product);
  return productState(
    { ...catalogue, stock: Number.isFinite(stock) ? stock : null, updated_at: `${today}T00:00:00.000Z` },
    history.get(product.productId) ?? [],
    today,
    { horizonDays: market.scenario.horizon - day },
  );
}

/** Outside the guardrails, or further than the max daily change from the price served the day before. */
function breaksLimits(problem: PricingProblem, price: number, prev: number | null): boolean {
  if (price < problem.minPrice - PRICE_TOLERANCE || price > problem.maxPrice + PRICE_TOLERANCE) return true;
  const limit = problem.maxDailyChange;
  if (limit === null || prev === null) return false;
  return Math.abs(price / prev - 1) > limit + PRICE_TOLERANCE / prev;
}
