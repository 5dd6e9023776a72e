import {
  addDays,
  type CatalogProduct,
  catalogGrid,
  daysBetween,
  fitDemand,
  roundToMinor,
  type SalesRow,
  type ScenarioInput,
  weekdayOf,
} from "@pricing/engine";
import { quantile } from "./select-products.js";

/** The Complete Journey sells in US dollars. */
const CURRENCY = "USD";

/**
 * How a real-shaped market is cut from a product's year: the history the learner sees ends the day before
 * `start` (Jan-Sep), the season it is scored on runs `horizon` days from it (Oct-Dec, the holidays' rise included).
 */
export interface MarketWindow {
  readonly historyStart: string;
  readonly start: string;
  readonly horizon: number;
}

export const CJ_WINDOW: MarketWindow = { historyStart: "2017-01-01", start: "2017-10-01", horizon: 92 };

/**
 * Outside the price band the history saw, demand falls twice as steeply above it (shoppers switch stores and
 * brands at prices they have not seen) and half as steeply below it (a household buys only so much milk): the
 * fitted elasticity says nothing there, and a learner must not take it on trust.
 */
export const ABOVE_BAND_FACTOR = 2;
export const BELOW_BAND_FACTOR = 0.5;

/** Unit cost as a share of the reference (median) price, as in the fixture's products.csv. */
const COST_SHARE = 0.7;

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** What a market took from its product, for the scenario's description and the README. */
export interface MarketFit {
  readonly productId: string;
  readonly elasticity: number;
  readonly band: readonly [number, number];
  readonly overdispersion: number;
  readonly seasonLevel: number;
}

/**
 * One product's real-shaped market (DESIGN §9 scenario keys): the engine's demand fit on the history window gives
 * the elasticity (inside the band of prices the history saw: its 5th..95th percentile; `ABOVE/BELOW_BAND_FACTOR`
 * outside it) and the weekday profile; the level path is each calendar week's units over what the fit expects at
 * that week's prices and weekdays (`demand.history_multipliers` on history days, `day_multipliers` on the season);
 * the overdispersion is NB2's alpha by moments around fit x level; `history.price_path` is the real daily price.
 * Demand on the catalogue grid (`family: "table"`), unlimited stock, unit cost 0.7 x the median price.
 */
export function realShapedMarket(
  product: CatalogProduct & { readonly name?: string },
  sales: readonly SalesRow[],
  window: MarketWindow,
  seed: number,
): { scenario: ScenarioInput; fit: MarketFit } {
  const id = product.product_id;
  const end = addDays(window.start, window.horizon - 1);
  const rows = sales.filter((r) => r.product_id === id && r.date >= window.historyStart && r.date <= end);
  const history = rows.filter((r) => r.date < window.start);
  const historyDays = daysBetween(window.historyStart, window.start);
  const reference = product.base_price;
  const fitted = fitDemand(history, [{ productId: id, referencePrice: reference }]).products.get(id);
  if (fitted === undefined) throw new Error(`product ${id}: no history to fit in the window`);

  // The level: each calendar week's (Monday first) units over the fit's expectation at the week's own prices.
  const weekOf = (date: string) => daysBetween(window.historyStart, date) + weekdayOf(window.historyStart);
  const units = new Map<number, number>();
  const expected = new Map<number, number>();
  for (const r of rows) {
    const w = Math.floor(weekOf(r.date) / 7);
    units.set(w, (units.get(w) ?? 0) + r.units_sold);
    const mu =
      fitted.baseRate *
      (fitted.weekdayFactors[weekdayOf(r.date)] ?? 1) *
      (r.price / reference) ** -fitted.elasticity;
    expected.set(w, (expected.get(w) ?? 0) + mu);
  }
  const levelOn = (date: string) => {
    const w = Math.floor(weekOf(date) / 7);
    const e = expected.get(w) ?? 0;
    return e > 0 ? round4((units.get(w) ?? 0) / e) : 1;
  };
  const dates = (from: string, n: number) => Array.from({ length: n }, (_, d) => addDays(from, d));
  const historyLevels = dates(window.historyStart, historyDays).map(levelOn);
  const seasonLevels = dates(window.start, window.horizon).map(levelOn);

  // NB2 alpha by moments: sum((y - m)^2 - m) / sum(m^2) around the fit times the level, over the history.
  let excess = 0;
  let squares = 0;
  for (const r of history) {
    const m =
      levelOn(r.date) *
      fitted.baseRate *
      (fitted.weekdayFactors[weekdayOf(r.date)] ?? 1) *
      (r.price / reference) ** -fitted.elasticity;
    excess += (r.units_sold - m) ** 2 - m;
    squares += m * m;
  }
  const overdispersion = round4(Math.max(0, excess / squares));

  // The real daily price (the last one carried over a day without a row), as a multiple of the reference.
  const priceOf = new Map(history.map((r) => [r.date, r.price]));
  let last = history[0]?.price ?? reference;
  const pricePath = dates(window.historyStart, historyDays).map((date) => {
    last = priceOf.get(date) ?? last;
    return round4(last / reference);
  });

  const prices = history.map((r) => r.price).sort((a, b) => a - b);
  const lo = roundToMinor(quantile(prices, 0.05), CURRENCY);
  const hi = roundToMinor(quantile(prices, 0.95), CURRENCY);
  const e = fitted.elasticity;
  const rate = (p: number) => fitted.baseRate * (p / reference) ** -e;
  const grid = catalogGrid({
    basePrice: reference,
    minPrice: roundToMinor(0.5 * reference, CURRENCY),
    maxPrice: roundToMinor(2 * reference, CURRENCY),
    maxDailyChange: null,
    currency: CURRENCY,
  });
  const table = grid.map((p) =>
    round4(
      p > hi
        ? rate(hi) * (p / hi) ** (-ABOVE_BAND_FACTOR * e)
        : p < lo
          ? rate(lo) * (p / lo) ** (-BELOW_BAND_FACTOR * e)
          : rate(p),
    ),
  );
  const seasonLevel = round4(seasonLevels.reduce((a, b) => a + b, 0) / seasonLevels.length);
  const name = `cj-${id}`;
  return {
    fit: { productId: id, elasticity: round4(e), band: [lo, hi], overdispersion, seasonLevel },
    scenario: {
      name,
      description:
        `Complete Journey ${id}${product.name ? ` (${product.name})` : ""}: elasticity ${e.toFixed(2)} inside ` +
        `${lo.toFixed(2)}..${hi.toFixed(2)}, ${ABOVE_BAND_FACTOR}x above, ${BELOW_BAND_FACTOR}x below; NB2 alpha ` +
        `${overdispersion}; its real level ${window.start}..${end} (mean ${seasonLevel.toFixed(2)} of Jan-Sep)`,
      seed,
      start_date: window.start,
      horizon: window.horizon,
      distribution: "negative_binomial",
      shutoff: false,
      max_daily_change: null,
      history: {
        days: historyDays,
        price_path: pricePath,
        change_every_days: 7,
        promoted_share: 0,
        price_variation: 0,
      },
      products: [
        {
          product_id: id,
          reference_price: reference,
          unit_cost: roundToMinor(COST_SHARE * reference, CURRENCY),
          grid,
          stock: null,
          demand: {
            family: "table",
            table,
            weekday: fitted.weekdayFactors.map(round4),
            overdispersion,
            history_multipliers: historyLevels,
            day_multipliers: seasonLevels,
          },
        },
      ],
    },
  };
}
