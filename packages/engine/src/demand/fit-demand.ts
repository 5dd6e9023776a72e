import { dayNumber, weekdayOfDay } from "../base/calendar.js";
import { at } from "../base/checked-index.js";
import { holidayOfEve } from "../base/holiday-calendar.js";
import { packedFilter, packedMap } from "../base/packed-map.js";
import { type DemandDistribution, negativeBinomial } from "../problem/sales-distribution.js";
import { isStockOutDay, type SalesRow } from "../sales/sales-row.js";
import {
  type FixedParams,
  fitDemandGlm,
  fittedMeans,
  type GlmData,
  type GlmFit,
  type GlmPrior,
  glmData,
  glmPrior,
  PROMOTION,
  SLOPE,
  withOffset,
} from "./demand-glm.js";
import { holidayLift } from "./holiday-lift.js";
import { estimateOverdispersion, momentOverdispersion } from "./overdispersion.js";
import { weeklyLevel } from "./weekly-level.js";

/** What the caller knows about a product besides its history (its catalogue base price). */
export interface ProductHint {
  readonly productId: string;
  /** The price demand is parameterised around; default the mean history price. */
  readonly referencePrice?: number;
}

export interface FitOptions {
  /** Elasticity assumed when neither the product nor its company says anything (default 2). */
  readonly priorElasticity?: number;
  /** Spread of that prior (default 1). */
  readonly priorElasticitySd?: number;
  /** Below this standard deviation of log price the price is treated as constant (default 1e-4). */
  readonly constantPriceTolerance?: number;
  /** Fewer usable days than this is "thin" and noted in the report (default 56). */
  readonly thinDays?: number;
  /**
   * `rows` already grouped by product in history order (`rowsByProduct(rows)`), where the caller holds them: the
   * online learner groups the history for its own evidence, and grouping 36,500 rows twice was a few % of its plan.
   */
  readonly byProduct?: ReadonlyMap<string, readonly SalesRow[]>;
}

export type ElasticitySource = "data" | "pooled" | "prior";

export interface FitReport {
  readonly rows: number;
  /** Rows used (stock-out days are censored demand and left out). */
  readonly usedRows: number;
  readonly distinctPrices: number;
  /** Standard deviation of log(price / reference): how much the price varied. */
  readonly logPriceSd: number;
  /** "data": estimated from the product's own prices (possibly shrunk toward the company, see weight). */
  readonly elasticitySource: ElasticitySource;
  /** Weight of the product's own data in its elasticity (1 = all own data, 0 = all pooled/prior). */
  readonly dataWeight: number;
  /** True when the unconstrained estimate had the wrong sign and the elasticity was held at 0. */
  readonly signConstrained: boolean;
  readonly converged: boolean;
  readonly iterations: number;
  /** True when the level walks week to week (a likelihood-ratio test against a flat level chose it). */
  readonly levelMoves: boolean;
  readonly notes: string[];
}

/**
 * The product's level through its history, relative to the level its forecasts carry forward (`baseRate`): one
 * multiplier per 7-day block counted back from `lastDate` (the last is 1), oldest first. All 1 when flat.
 */
export interface FittedLevel {
  readonly lastDate: string;
  readonly weekly: number[];
  /**
   * Variance of a week's log level around `weekly` that no week carries to the next (0 when the weeks keep to the
   * level): the days of one week share it, and a future week draws its own.
   */
  readonly strayVariance: number;
}

/**
 * One product's fitted demand: rate = baseRate * weekdayFactors[dow] * (price / referencePrice) ^ -elasticity *
 * promotionLift ^ promoted (`fittedRate`), times holidayEveLift on a feast holiday's eve (`calendarLift`), with NB2
 * noise `overdispersion` around it; on a history day also times that day's level (`levelOn`).
 */
export interface FittedProduct {
  readonly productId: string;
  readonly referencePrice: number;
  /** Units per day at the reference price on an average weekday, at the level of the last history week. */
  readonly baseRate: number;
  /** Monday first, mean 1. */
  readonly weekdayFactors: number[];
  /** >= 0: percent drop in demand per percent rise in price. */
  readonly elasticity: number;
  /** NB2 alpha >= 0: a day's variance is rate + alpha rate^2 (0: Poisson). */
  readonly overdispersion: number;
  /** Multiplier of a promoted day's rate (a share s promoted: lift ^ s); 1 when the history has no promotion. */
  readonly promotionLift: number;
  /**
   * Multiplier of the rate on a feast holiday's eve (`holidayOfEve`), the company's (`CompanyFitReport`); 1 when its
   * history shows none.
   */
  readonly holidayEveLift: number;
  readonly level: FittedLevel;
  readonly stdErrors: {
    readonly elasticity: number;
    /** Of log(baseRate at the Monday level), i.e. the intercept, the level's own uncertainty included. */
    readonly logIntercept: number;
    /** Of log weekday effects relative to Monday (Monday = 0). */
    readonly weekdayLog: number[];
    /** Of log(promotionLift). */
    readonly promotion: number;
    /** Of the over-dispersion alpha. */
    readonly overdispersion: number;
  };
  readonly report: FitReport;
}

export interface CompanyFitReport {
  /** The company's pooled NB2 alpha, toward which a product with thin history is shrunk. */
  readonly overdispersion: number;
  /** Pooled (company-mean) elasticity and the spread between products (empirical Bayes). */
  readonly meanElasticity: number;
  readonly elasticitySpread: number;
  readonly productsWithPriceVariation: number;
  /** The rate's multiplier on a feast holiday's eve, pooled over the products (`holidayLift`); 1 when not shown. */
  readonly holidayEveLift: number;
  /** Standard error of its log (across holidays); NaN with too few holidays in the history. */
  readonly holidayEveLiftSe: number;
  /** Feast holidays whose eves the history holds. */
  readonly holidays: number;
  /** Products with no usable history (not fitted). */
  readonly unfitted: string[];
}

export interface FittedDemand {
  readonly products: ReadonlyMap<string, FittedProduct>;
  readonly company: CompanyFitReport;
  /**
   * Expected units per day of `productId` on `date` (YYYY-MM-DD) at `price` (currency units) with a share
   * `promoted` of the day promoted, at the level carried forward.
   */
  rate(productId: string, date: string, price: number, promoted?: number): number;
}

/** Expected units per day of a fitted product on weekday `weekday` (Monday = 0) at `price`, at the level carried forward. */
export function fittedRate(p: FittedProduct, weekday: number, price: number, promoted = 0): number {
  return (
    p.baseRate *
    (p.weekdayFactors[weekday] ?? 1) *
    (price / p.referencePrice) ** -p.elasticity *
    (promoted > 0 ? p.promotionLift ** promoted : 1)
  );
}

/**
 * Expected units per day of a fitted product on day `day` (a `dayNumber`) at `price`, at the level carried forward:
 * `fittedRate` on its weekday times its calendar's lift (`calendarLift`).
 */
export function fittedRateOn(p: FittedProduct, day: number, price: number, promoted = 0): number {
  return fittedRate(p, weekdayOfDay(day), price, promoted) * calendarLift(p, day);
}

/** The multiplier of a fitted product's rate on day `day` (a `dayNumber`) from the calendar: its holiday-eve lift on an eve. */
export function calendarLift(p: FittedProduct, day: number): number {
  return holidayOfEve(day) === null ? 1 : p.holidayEveLift;
}

/** The level of `date`'s week relative to the level carried forward: 1 after the history, the first week's before it. */
export function levelOn(p: FittedProduct, date: string): number {
  return levelOnDay(p, dayNumber(date));
}

/**
 * `levelOn` of day `day` (a `dayNumber`): the learner reads it for every history row, by number, not by string, and
 * passes `lastDay` (the `dayNumber` of `p.level.lastDate`), read once per product rather than looked up per row.
 */
export function levelOnDay(p: FittedProduct, day: number, lastDay = dayNumber(p.level.lastDate)): number {
  const weekly = p.level.weekly;
  // Whole days between two UTC midnights: the same count `daysBetween` of their dates gives.
  const back = Math.floor((lastDay - day) / 7);
  if (back < 0) return 1;
  return weekly[Math.max(0, weekly.length - 1 - back)] ?? 1;
}

/** The law of a fitted product's daily demand: NB2 at its over-dispersion (Poisson at 0). */
export function fittedLaw(p: FittedProduct): DemandDistribution {
  return negativeBinomial(p.overdispersion);
}

interface Prepared {
  readonly productId: string;
  readonly referencePrice: number;
  readonly rows: number;
  readonly data: GlmData;
  /** Each row's 7-day block, 0 the oldest, counted back from `lastDate`. */
  readonly week: Int32Array;
  /** Each row's `dayNumber`. */
  readonly day: Int32Array;
  readonly lastDate: string;
  readonly distinctPrices: number;
  readonly logPriceSd: number;
  readonly priceVaries: boolean;
  readonly hasPromotions: boolean;
}

/** A product's pass-1 fit: its own data under a weak prior, with the level and alpha the later passes keep. */
interface FirstFit {
  readonly fit: GlmFit;
  readonly signConstrained: boolean;
  readonly alpha: number;
  readonly alphaSe: number;
  /** The product's data with the later fits' offset (each row's week's level and calendar lift). */
  readonly data: GlmData;
  /** Each row's log level alone (relative to the last week's). */
  readonly logLevel: Float64Array;
  readonly levelVariance: number;
  readonly levelMoves: boolean;
  readonly strayVariance: number;
}

/** Days of history the company's pooled alpha is worth in a product's own (shrinkage of a thin product's alpha). */
const ALPHA_PRIOR_DAYS = 56;
/**
 * Rounds of level, alpha and mean: the level is read off the means and the means are fitted given the level. One:
 * a second round (the level re-read off the first's means) moved bench:real's WAPE by 0.001 and coverage by 0.2 pp
 * and bench:closed-loop's real suite by 0.04 pp (26 Nov 2026), for ~8 % of a nightly plan's CPU; the fit is
 * refitted every night, so what a second round refines is refined again tomorrow.
 */
const LEVEL_ROUNDS = 1;

/**
 * Fits an NB2 GLM with weekday, log-price and promotion terms and a weekly level to each product's history (rows
 * only, never the true parameters), in two empirical-Bayes passes: first each product alone under a weak prior
 * (Poisson means, then rounds of the weekly level (`weeklyLevel`: a walk only where a likelihood-ratio test finds
 * one), the over-dispersion (`estimateOverdispersion`, Cox-Reid) and the NB2 means given both), then again under a
 * prior centred on the company (mean elasticity and weekday profile, with the spread between products; alpha shrunk
 * toward the company's by the product's days), so thin or flat-priced products borrow from the rest. The
 * promotion term keeps promoted days from biasing the price effect; the level keeps a seasonal rise or a trend from
 * reading as one, and is what the forecasts carry forward. Before both passes the company's lift on feast holidays'
 * eves (`holidayLift`) is read off every product's Poisson means and enters every fit as an offset, so the level
 * does not chase a holiday's shopping into the weeks after it, and a coming holiday's eve is forecast with it. Elasticity is kept >= 0. A constant price cannot
 * identify an elasticity: it takes the company mean (or the prior) and the report says so.
 */
export function fitDemand(
  rows: readonly SalesRow[],
  products?: readonly ProductHint[],
  options: FitOptions = {},
): FittedDemand {
  const priorE = options.priorElasticity ?? 2;
  const priorSd = options.priorElasticitySd ?? 1;
  const tol = options.constantPriceTolerance ?? 1e-4;
  const thinDays = options.thinDays ?? 56;

  const byProduct = options.byProduct ? pickRows(options.byProduct, products) : groupRows(rows, products);
  const hints = new Map((products ?? []).map((h) => [h.productId, h]));

  const prepared: Prepared[] = [];
  const unfitted: string[] = [];
  for (const [productId, list] of byProduct) {
    const p = prepare(productId, list, hints.get(productId)?.referencePrice, tol);
    if (p) prepared.push(p);
    else unfitted.push(productId);
  }

  // Pass 1: each product on its own data, weak priors.
  const weakPrior = glmPrior([0, 0, 0, 0, 0, 0, 0, -priorE, 0], [0, 1, 1, 1, 1, 1, 1, 1 / 100, 1]);
  const poisson = packedMap(prepared, (p) => fitConstrained(p, weakPrior, priorE, 0));
  // The company's holiday-eve lift, read off every product's days against its means without any level.
  const lift = holidayLift(
    packedMap(prepared, (p, i) => ({
      day: p.day,
      units: p.data.units,
      mu: poisson[i]?.fit.means ?? fittedMeans(p.data, []),
    })),
  );
  const eveLift = Math.exp(lift.logLift);
  // An eve's offset factor, as `glmData` takes it of the eve's offset.
  const eveFactor = lift.logLift === 0 ? 1 : eveLift;
  const first = packedMap(prepared, (p, i) => {
    // The calendar's offset and its factors in one buffer (see `prepare`).
    const n = p.day.length;
    const columns = new ArrayBuffer(2 * 8 * n);
    const calendar = new Float64Array(columns, 0, n);
    const factor = new Float64Array(columns, 8 * n, n);
    for (let k = 0; k < n; k++) {
      const eve = holidayOfEve(p.day[k] ?? 0) !== null;
      calendar[k] = eve ? lift.logLift : 0;
      factor[k] = eve ? eveFactor : 1;
    }
    const start = poisson[i] ?? fitConstrained(p, weakPrior, priorE, 0);
    return firstFit(withData(p, withOffset(p.data, calendar, factor)), weakPrior, priorE, start);
  });

  // Company level: precision-weighted mean elasticity and DerSimonian-Laird between-product spread.
  const identified = packedFilter(first, (f, i) => prepared[i]?.priceVaries === true && !f.signConstrained);
  let meanE = priorE;
  let spread = priorSd;
  if (identified.length >= 3) {
    const es = Float64Array.from(identified, (f) => -at(f.fit.theta, 7));
    const ws = Float64Array.from(identified, (f) => 1 / Math.max(at(f.fit.stdErrors, 7) ** 2, 1e-8));
    const sw = ws.reduce((a, b) => a + b, 0);
    const fixedMean = es.reduce((a, e, i) => a + at(ws, i) * e, 0) / sw;
    const q = es.reduce((a, e, i) => a + at(ws, i) * (e - fixedMean) ** 2, 0);
    const c = sw - ws.reduce((a, w) => a + w * w, 0) / sw;
    const tau2 = Math.max(0, (q - (identified.length - 1)) / c);
    const rw = ws.map((w) => 1 / (1 / w + tau2));
    const srw = rw.reduce((a, b) => a + b, 0);
    meanE = es.reduce((a, e, i) => a + at(rw, i) * e, 0) / srw;
    spread = Math.max(Math.sqrt(tau2), 0.05);
  }
  const weekdayMean = new Array<number>(7).fill(0);
  let weekdaySpread = 1;
  if (prepared.length >= 3) {
    for (const f of first)
      for (let d = 1; d < 7; d++) weekdayMean[d] = at(weekdayMean, d) + at(f.fit.theta, d) / first.length;
    let ss = 0;
    for (const f of first) for (let d = 1; d < 7; d++) ss += (at(f.fit.theta, d) - at(weekdayMean, d)) ** 2;
    weekdaySpread = Math.max(Math.sqrt(ss / (6 * (first.length - 1))), 0.03);
  }

  // The company's alpha: the median of the products with enough days to say (all of them when too few have).
  const long = packedFilter(first, (_, i) => (prepared[i]?.data.units.length ?? 0) >= thinDays);
  const alphas = packedMap(long.length >= 3 ? long : first, (f) => f.alpha).sort((a, b) => a - b);
  const pooledAlpha = alphas.length === 0 ? 0 : at(alphas, Math.floor((alphas.length - 1) / 2));

  // Pass 2: each product under the company prior, at its pass-1 level and its shrunk alpha.
  const companyPrior = glmPrior(
    [0, ...weekdayMean.slice(1), -meanE, 0],
    [0, ...new Array<number>(6).fill(1 / weekdaySpread ** 2), 1 / spread ** 2, 1],
  );
  const fitted = new Map<string, FittedProduct>();
  prepared.forEach((p, i) => {
    const one = first[i];
    if (one === undefined) return;
    const n = p.data.units.length;
    const alpha = (n * one.alpha + ALPHA_PRIOR_DAYS * pooledAlpha) / (n + ALPHA_PRIOR_DAYS);
    const { fit, signConstrained } = fitConstrained(
      withData(p, one.data),
      companyPrior,
      meanE,
      alpha,
      one.fit.theta,
    );
    const source: ElasticitySource = p.priceVaries ? "data" : identified.length >= 3 ? "pooled" : "prior";
    const seE = at(fit.stdErrors, 7);
    const dataWeight =
      p.priceVaries && !signConstrained ? Math.max(0, 1 - (seE * seE) / (spread * spread)) : 0;
    const notes: string[] = [];
    if (!p.priceVaries) {
      notes.push(
        source === "pooled"
          ? `price never varied: elasticity is the company mean ${meanE.toFixed(3)} (sd ${spread.toFixed(3)})`
          : `price never varied: elasticity is the prior ${priorE} (sd ${priorSd})`,
      );
    } else if (dataWeight < 0.5) {
      notes.push(`price barely varied: elasticity mostly pooled (own-data weight ${dataWeight.toFixed(2)})`);
    }
    if (p.data.units.every((u) => u === 0)) notes.push("no sales in history: the base rate is ~0");
    if (p.data.units.length < thinDays)
      notes.push(`thin history (${p.data.units.length} days): pooled toward company`);
    if (signConstrained) notes.push("estimated elasticity had the wrong sign: held at 0");
    if (p.rows > p.data.units.length) notes.push(`${p.rows - p.data.units.length} stock-out days left out`);
    if (one.levelMoves) notes.push("the level moves week to week: forecasts carry the last week's forward");
    fitted.set(
      p.productId,
      toFittedProduct(p, fit, withAlpha(one, alpha, signConstrained), source, dataWeight, eveLift, notes),
    );
  });

  return {
    products: fitted,
    company: {
      overdispersion: pooledAlpha,
      meanElasticity: meanE,
      elasticitySpread: spread,
      productsWithPriceVariation: identified.length,
      holidayEveLift: eveLift,
      holidayEveLiftSe: lift.stdError,
      holidays: lift.holidays,
      unfitted,
    },
    rate(productId: string, date: string, price: number, promoted = 0): number {
      const p = fitted.get(productId);
      if (!p) throw new Error(`no fitted demand for product ${productId}`);
      return fittedRateOn(p, dayNumber(date), price, promoted);
    },
  };
}

/**
 * The rows of each product (each hinted product first, rows of others left out where hints are given). A function
 * of its own: its loop over every history row made fitDemand hot, which TurboFan then compiled whole with the
 * passes inlined, twice a process (on the stack, then again), for a function that runs once a plan.
 */
function groupRows(rows: readonly SalesRow[], products?: readonly ProductHint[]): Map<string, SalesRow[]> {
  const byProduct = new Map<string, SalesRow[]>();
  for (const hint of products ?? []) byProduct.set(hint.productId, []);
  for (const row of rows) {
    if (products && !byProduct.has(row.product_id)) continue;
    let list = byProduct.get(row.product_id);
    if (!list) {
      list = [];
      byProduct.set(row.product_id, list);
    }
    list.push(row);
  }
  return byProduct;
}

/** `groupRows`' lists taken from rows already grouped by product: the same lists in the same order. */
function pickRows(
  byProduct: ReadonlyMap<string, readonly SalesRow[]>,
  products?: readonly ProductHint[],
): ReadonlyMap<string, readonly SalesRow[]> {
  if (products === undefined) return byProduct;
  const picked = new Map<string, readonly SalesRow[]>();
  for (const hint of products) picked.set(hint.productId, byProduct.get(hint.productId) ?? []);
  return picked;
}

/** Bytes a row takes in `prepare`'s buffer: five columns of doubles, three of 32-bit integers, the weekday's byte. */
const COLUMN_BYTES = 5 * 8 + 3 * 4 + 1;

function prepare(
  productId: string,
  list: readonly SalesRow[],
  referenceHint: number | undefined,
  tol: number,
): Prepared | null {
  // One pass over the rows (objects scattered in memory, 36,500 a plan; three passes read them before), into arrays
  // of the list's length whose first n entries are the usable days'.
  const size = list.length;
  // The product's columns in one buffer: a typed array of a few hundred doubles has its memory outside V8's heap,
  // each one a backing store to allocate, track and free (nine a product, most of this function's and the fit's GC).
  const buffer = new ArrayBuffer(size * COLUMN_BYTES);
  const doubles = (k: number) => new Float64Array(buffer, k * 8 * size, size);
  const ints = (k: number) => new Int32Array(buffer, (5 * 8 + k * 4) * size, size);
  const units = doubles(0);
  const promotedShare = doubles(1);
  const logPriceOfDay = doubles(2);
  const offset = doubles(3);
  const offsetFactor = doubles(4);
  const priceIndex = ints(0);
  // Each date read once, as its day number: the weekday and the week follow from it.
  const day = ints(1);
  const week = ints(2);
  const weekday = new Uint8Array(buffer, (5 * 8 + 3 * 4) * size, size);
  // Each distinct price's index, in order of first sale; the day before's price and its index, as a price is mostly
  // held for days and a Map of doubles hashes each.
  const prices = new Map<number, number>();
  const distinctPrices: number[] = [];
  let heldPrice = Number.NaN;
  let held = -1;
  let priceSum = 0;
  let lastDate = "";
  let lastDay = Number.NEGATIVE_INFINITY;
  let hasPromotions = false;
  let n = 0;
  for (let j = 0; j < size; j++) {
    const r = list[j];
    // A day that ended out of stock only tells us demand was at least the stock: censored, so left out.
    if (r === undefined || !(r.price > 0 && Number.isFinite(r.units_sold) && r.units_sold >= 0)) continue;
    if (isStockOutDay(r)) continue;
    const i = n++;
    const date = r.date;
    const d = dayNumber(date);
    day[i] = d;
    if (i === 0) lastDate = date;
    if (d > lastDay) {
      lastDay = d;
      lastDate = date;
    }
    units[i] = r.units_sold;
    weekday[i] = weekdayOfDay(d);
    const price = r.price;
    priceSum += price;
    let k = price === heldPrice ? held : prices.get(price);
    if (k === undefined) {
      k = distinctPrices.length;
      prices.set(price, k);
      distinctPrices.push(price);
    }
    heldPrice = price;
    held = k;
    priceIndex[i] = k;
    const promoted = Math.min(1, Math.max(0, r.promoted ?? 0));
    promotedShare[i] = promoted;
    if (promoted > 0) hasPromotions = true;
  }
  if (n === 0) return null;
  const reference = referenceHint ?? priceSum / n;
  // The log once per distinct price: the days repeat a few dozen.
  const logPrices = new Float64Array(distinctPrices.length);
  for (let k = 0; k < logPrices.length; k++)
    logPrices[k] = Math.log((distinctPrices[k] ?? Number.NaN) / reference);
  let sum = 0;
  let oldest = 0;
  for (let i = 0; i < n; i++) {
    const logPrice = logPrices[priceIndex[i] ?? 0] ?? Number.NaN;
    logPriceOfDay[i] = logPrice;
    sum += logPrice;
    const back = Math.floor((lastDay - (day[i] ?? 0)) / 7);
    week[i] = back;
    oldest = Math.max(oldest, back);
  }
  // Blocks were counted back from the last day; number them oldest first.
  for (let i = 0; i < n; i++) week[i] = oldest - (week[i] ?? 0);
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += ((logPriceOfDay[i] ?? Number.NaN) - mean) ** 2;
  const sd = Math.sqrt(ss / n);
  // No offset yet: its factors are 1, as `glmData` would take them of 0.
  offsetFactor.fill(1);
  const exact = n === size;
  const data = glmData(
    exact ? units : units.slice(0, n),
    exact ? weekday : weekday.slice(0, n),
    exact ? logPriceOfDay : logPriceOfDay.slice(0, n),
    exact ? priceIndex : priceIndex.slice(0, n),
    logPrices,
    exact ? promotedShare : promotedShare.slice(0, n),
    exact ? offset : offset.slice(0, n),
    exact ? offsetFactor : offsetFactor.slice(0, n),
  );
  return {
    productId,
    referencePrice: reference,
    rows: list.length,
    data,
    week: exact ? week : week.slice(0, n),
    day: exact ? day : day.slice(0, n),
    lastDate,
    distinctPrices: prices.size,
    logPriceSd: sd,
    priceVaries: prices.size > 1 && sd > tol,
    hasPromotions,
  };
}

/**
 * Pass 1 of one product from its Poisson means under the weak prior (`start`): `LEVEL_ROUNDS` rounds of its weekly
 * level, its alpha and the NB2 means given both, the data's offset (the calendar's) under the level's.
 */
function firstFit(p: Prepared, prior: GlmPrior, fallbackElasticity: number, start: Constrained): FirstFit {
  let current = start;
  const flat = p.data;
  let offset = flat.offset;
  let offsetFactor = flat.offsetFactor;
  // Each row's log level: 0 (a new array) where no round reads one.
  let logLevel: Float64Array | undefined;
  // The means without the level: the start's, then each round's fit's read against the calendar alone.
  let unlevelled = fittedMeans(flat, current.fit.theta);
  // The rounds read the level at the cheap moment alpha; the last fit's alpha is the likelihood's.
  let alpha = momentOverdispersion(flat.units, unlevelled);
  let level = { lastVariance: 0, stepVariance: 0, strayVariance: 0, moves: false };
  for (let round = 0; round < LEVEL_ROUNDS; round++) {
    // The level is read against the means without it.
    if (round > 0) unlevelled = fittedMeans(flat, current.fit.theta);
    const walk = weeklyLevel(p.week, flat.units, unlevelled, alpha);
    // The three columns in one buffer (one backing store outside V8's heap, not three: see `prepare`).
    const n = p.week.length;
    const columns = new ArrayBuffer(3 * 8 * n);
    logLevel = new Float64Array(columns, 0, n);
    offset = new Float64Array(columns, 8 * n, n);
    offsetFactor = new Float64Array(columns, 16 * n, n);
    // exp of the offset once per week where the calendar adds nothing (l + 0 is l), per day on an eve: the factors
    // `glmData` would take per day, bit for bit.
    const weekFactors = levelFactors(walk.logLevels);
    for (let i = 0; i < logLevel.length; i++) {
      const w = p.week[i] ?? 0;
      const l = walk.logLevels[w] ?? 0;
      const calendar = flat.offset[i] ?? 0;
      const o = l + calendar;
      logLevel[i] = l;
      offset[i] = o;
      offsetFactor[i] =
        calendar === 0 ? (l === 0 ? 1 : (weekFactors[w] ?? Number.NaN)) : o === 0 ? 1 : Math.exp(o);
    }
    level = {
      lastVariance: walk.lastVariance,
      stepVariance: walk.stepVariance,
      strayVariance: walk.strayVariance,
      moves: walk.stepVariance > 0,
    };
    const data = withOffset(flat, offset, offsetFactor);
    current = fitConstrained(withData(p, data), prior, fallbackElasticity, alpha, current.fit.theta);
    alpha = momentOverdispersion(data.units, current.fit.means);
  }
  const data = withOffset(flat, offset, offsetFactor);
  // The last round's fit is of these data: its means are theirs.
  const estimate = estimateOverdispersion(data, current.fit.means);
  return {
    fit: current.fit,
    signConstrained: current.signConstrained,
    alpha: estimate.alpha,
    alphaSe: estimate.se,
    data,
    logLevel: logLevel ?? new Float64Array(flat.units.length),
    levelVariance: level.lastVariance + level.stepVariance,
    levelMoves: level.moves,
    strayVariance: level.strayVariance,
  };
}

/** `levelFactors`' result, refilled every call up to the weeks' count (read before the next). */
let levelFactorScratch = new Float64Array(64);

/**
 * exp of each week's log level (1 where it is 0): a row's offset factor where the calendar adds nothing. In scratch
 * (entries past the weeks' stale): read within the round that asks.
 */
function levelFactors(logLevels: ArrayLike<number>): Float64Array {
  if (levelFactorScratch.length < logLevels.length)
    levelFactorScratch = new Float64Array(2 * logLevels.length);
  const factors = levelFactorScratch;
  for (let w = 0; w < factors.length; w++) {
    const l = logLevels[w] ?? 0;
    factors[w] = l === 0 ? 1 : Math.exp(l);
  }
  return factors;
}

/**
 * `p` with data `data`, written out: objects spread from one another took other shapes in optimised code than in
 * the interpreter, and the fit's functions that read them deoptimised plan after plan (`packedMap`).
 */
function withData(p: Prepared, data: GlmData): Prepared {
  return {
    productId: p.productId,
    referencePrice: p.referencePrice,
    rows: p.rows,
    data,
    week: p.week,
    day: p.day,
    lastDate: p.lastDate,
    distinctPrices: p.distinctPrices,
    logPriceSd: p.logPriceSd,
    priceVaries: p.priceVaries,
    hasPromotions: p.hasPromotions,
  };
}

/** `one` with pass 2's alpha and sign constraint, written out (`withData`). */
function withAlpha(one: FirstFit, alpha: number, signConstrained: boolean): FirstFit {
  return {
    fit: one.fit,
    signConstrained,
    alpha,
    alphaSe: one.alphaSe,
    data: one.data,
    logLevel: one.logLevel,
    levelVariance: one.levelVariance,
    levelMoves: one.levelMoves,
    strayVariance: one.strayVariance,
  };
}

interface Constrained {
  readonly fit: GlmFit;
  readonly signConstrained: boolean;
}

function fitConstrained(
  p: Prepared,
  prior: GlmPrior,
  fallbackElasticity: number,
  alpha: number,
  start?: readonly number[],
): Constrained {
  const fixed: FixedParams = p.hasPromotions ? {} : { promotion: 0 };
  if (!p.priceVaries)
    return {
      fit: fitDemandGlm(p.data, prior, alpha, { ...fixed, slope: -fallbackElasticity }, start),
      signConstrained: false,
    };
  const fit = fitDemandGlm(p.data, prior, alpha, fixed, start);
  if (at(fit.theta, SLOPE) <= 0) return { fit, signConstrained: false };
  // Demand rising with price is noise or confounding here; the sensible-sign boundary is the constrained MAP.
  return { fit: fitDemandGlm(p.data, prior, alpha, { ...fixed, slope: 0 }, start), signConstrained: true };
}

function toFittedProduct(
  p: Prepared,
  fit: GlmFit,
  one: FirstFit,
  source: ElasticitySource,
  dataWeight: number,
  holidayEveLift: number,
  notes: string[],
): FittedProduct {
  const raw = packedMap(fit.theta.slice(0, 7), (g, d) => (d === 0 ? 1 : Math.exp(g)));
  let meanRaw = 0;
  for (const w of raw) meanRaw += w;
  meanRaw /= 7;
  // The pass-1 level relative to its last week (each block's last day's); a block without a usable day keeps its
  // neighbour's.
  let blocks = 1;
  for (const w of p.week) blocks = Math.max(blocks, w + 1);
  const logOfWeek = new Float64Array(blocks);
  const hasDay = new Uint8Array(blocks);
  for (let i = 0; i < p.week.length; i++) {
    const w = p.week[i] ?? 0;
    logOfWeek[w] = one.logLevel[i] ?? 0;
    hasDay[w] = 1;
  }
  const weekly: number[] = [];
  for (let w = 0; w < blocks; w++)
    weekly.push(hasDay[w] ? Math.exp(logOfWeek[w] ?? 0) : (weekly[w - 1] ?? 1));
  const seA = at(fit.stdErrors, 0);
  return {
    productId: p.productId,
    referencePrice: p.referencePrice,
    baseRate: Math.exp(at(fit.theta, 0)) * meanRaw,
    weekdayFactors: packedMap(raw, (w) => w / meanRaw),
    elasticity: Math.max(0, -at(fit.theta, SLOPE)),
    overdispersion: one.alpha,
    promotionLift: p.hasPromotions ? Math.exp(at(fit.theta, PROMOTION)) : 1,
    holidayEveLift,
    level: { lastDate: p.lastDate, weekly, strayVariance: one.strayVariance },
    stdErrors: {
      elasticity: at(fit.stdErrors, SLOPE),
      // A walking level is known at its last week to within its filter variance, plus a week's step ahead.
      logIntercept: Math.sqrt(Math.max(seA * seA, one.levelVariance)),
      weekdayLog: [0, ...fit.stdErrors.slice(1, 7)],
      promotion: at(fit.stdErrors, PROMOTION),
      overdispersion: one.alphaSe,
    },
    report: {
      rows: p.rows,
      usedRows: p.data.units.length,
      distinctPrices: p.distinctPrices,
      logPriceSd: p.logPriceSd,
      elasticitySource: source,
      dataWeight,
      signConstrained: one.signConstrained,
      converged: fit.converged,
      iterations: fit.iterations,
      levelMoves: one.levelMoves,
      notes,
    },
  };
}
