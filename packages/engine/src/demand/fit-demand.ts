import { weekdayOf } from "../base/calendar.js";
import { at } from "../base/checked-index.js";
import type { SalesRow } from "../market/generate-market.js";
import { fitPoissonGlm, type GlmData, type GlmFit, type GlmPrior, PARAMS } from "./poisson-glm.js";

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
  readonly notes: string[];
}

/** One product's fitted demand: rate = baseRate * weekdayFactors[dow] * (price / referencePrice) ^ -elasticity. */
export interface FittedProduct {
  readonly productId: string;
  readonly referencePrice: number;
  /** Units per day at the reference price on an average weekday. */
  readonly baseRate: number;
  /** Monday first, mean 1. */
  readonly weekdayFactors: number[];
  /** >= 0: percent drop in demand per percent rise in price. */
  readonly elasticity: number;
  readonly stdErrors: {
    readonly elasticity: number;
    /** Of log(baseRate at the Monday level), i.e. the intercept. */
    readonly logIntercept: number;
    /** Of log weekday effects relative to Monday (Monday = 0). */
    readonly weekdayLog: number[];
  };
  readonly report: FitReport;
}

export interface CompanyFitReport {
  /** Pooled (company-mean) elasticity and the spread between products (empirical Bayes). */
  readonly meanElasticity: number;
  readonly elasticitySpread: number;
  readonly productsWithPriceVariation: number;
  /** Products with no usable history (not fitted). */
  readonly unfitted: string[];
}

export interface FittedDemand {
  readonly products: ReadonlyMap<string, FittedProduct>;
  readonly company: CompanyFitReport;
  /** Expected units per day of `productId` on `date` (YYYY-MM-DD) at `price` (currency units). */
  rate(productId: string, date: string, price: number): number;
}

/** Expected units per day of a fitted product on weekday `weekday` (Monday = 0) at `price`. */
export function fittedRate(p: FittedProduct, weekday: number, price: number): number {
  return p.baseRate * (p.weekdayFactors[weekday] ?? 1) * (price / p.referencePrice) ** -p.elasticity;
}

interface Prepared {
  readonly productId: string;
  readonly referencePrice: number;
  readonly rows: number;
  readonly data: GlmData;
  readonly distinctPrices: number;
  readonly logPriceSd: number;
  readonly priceVaries: boolean;
}

/**
 * Fits a Poisson GLM with weekday and log-price terms to each product's history (rows only, never the true
 * parameters), in two empirical-Bayes passes: first each product alone under a weak prior, then again under a
 * prior centred on the company (mean elasticity and weekday profile, with the spread between products), so thin
 * or flat-priced products borrow from the rest. Elasticity is kept >= 0. A constant price cannot identify an
 * elasticity: it takes the company mean (or the prior) and the report says so.
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
  const hints = new Map((products ?? []).map((h) => [h.productId, h]));

  const prepared: Prepared[] = [];
  const unfitted: string[] = [];
  for (const [productId, list] of byProduct) {
    const p = prepare(productId, list, hints.get(productId)?.referencePrice, tol);
    if (p) prepared.push(p);
    else unfitted.push(productId);
  }

  // Pass 1: each product on its own data, weak priors.
  const weakPrior: GlmPrior = {
    mean: [0, 0, 0, 0, 0, 0, 0, -priorE],
    precision: [0, 1, 1, 1, 1, 1, 1, 1 / 100],
  };
  const first = prepared.map((p) => fitConstrained(p, weakPrior, priorE));

  // Company level: precision-weighted mean elasticity and DerSimonian-Laird between-product spread.
  const identified = first.filter((f, i) => prepared[i]?.priceVaries && !f.signConstrained);
  let meanE = priorE;
  let spread = priorSd;
  if (identified.length >= 3) {
    const es = identified.map((f) => -at(f.fit.theta, 7));
    const ws = identified.map((f) => 1 / Math.max(at(f.fit.stdErrors, 7) ** 2, 1e-8));
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

  // Pass 2: each product under the company prior.
  const companyPrior: GlmPrior = {
    mean: [0, ...weekdayMean.slice(1), -meanE],
    precision: [0, ...new Array<number>(6).fill(1 / weekdaySpread ** 2), 1 / spread ** 2],
  };
  const fitted = new Map<string, FittedProduct>();
  prepared.forEach((p) => {
    const { fit, signConstrained } = fitConstrained(p, companyPrior, meanE);
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
    fitted.set(p.productId, toFittedProduct(p, fit, signConstrained, source, dataWeight, notes));
  });

  return {
    products: fitted,
    company: {
      meanElasticity: meanE,
      elasticitySpread: spread,
      productsWithPriceVariation: identified.length,
      unfitted,
    },
    rate(productId: string, date: string, price: number): number {
      const p = fitted.get(productId);
      if (!p) throw new Error(`no fitted demand for product ${productId}`);
      return fittedRate(p, weekdayOf(date), price);
    },
  };
}

function prepare(
  productId: string,
  list: readonly SalesRow[],
  referenceHint: number | undefined,
  tol: number,
): Prepared | null {
  // A day that ended out of stock only tells us demand was at least the stock: censored, so left out.
  const usable = list.filter(
    (r) =>
      r.price > 0 &&
      Number.isFinite(r.units_sold) &&
      r.units_sold >= 0 &&
      !(r.stock_on_hand !== null && r.units_sold >= r.stock_on_hand),
  );
  if (usable.length === 0) return null;
  const reference = referenceHint ?? usable.reduce((a, r) => a + r.price, 0) / usable.length;
  const n = usable.length;
  const data: GlmData = {
    units: new Float64Array(n),
    weekday: new Uint8Array(n),
    logPrice: new Float64Array(n),
  };
  const prices = new Set<number>();
  let sum = 0;
  usable.forEach((r, i) => {
    data.units[i] = r.units_sold;
    data.weekday[i] = weekdayOf(r.date);
    const logPrice = Math.log(r.price / reference);
    data.logPrice[i] = logPrice;
    sum += logPrice;
    prices.add(r.price);
  });
  const mean = sum / n;
  let ss = 0;
  for (const logPrice of data.logPrice) ss += (logPrice - mean) ** 2;
  const sd = Math.sqrt(ss / n);
  return {
    productId,
    referencePrice: reference,
    rows: list.length,
    data,
    distinctPrices: prices.size,
    logPriceSd: sd,
    priceVaries: prices.size > 1 && sd > tol,
  };
}

function fitConstrained(
  p: Prepared,
  prior: GlmPrior,
  fallbackElasticity: number,
): { fit: GlmFit; signConstrained: boolean } {
  if (!p.priceVaries)
    return { fit: fitPoissonGlm(p.data, prior, -fallbackElasticity), signConstrained: false };
  const fit = fitPoissonGlm(p.data, prior);
  if (at(fit.theta, 7) <= 0) return { fit, signConstrained: false };
  // Demand rising with price is noise or confounding here; the sensible-sign boundary is the constrained MAP.
  return { fit: fitPoissonGlm(p.data, prior, 0), signConstrained: true };
}

function toFittedProduct(
  p: Prepared,
  fit: GlmFit,
  signConstrained: boolean,
  source: ElasticitySource,
  dataWeight: number,
  notes: string[],
): FittedProduct {
  const logFactors = [0, ...fit.theta.slice(1, 7)];
  const raw = logFactors.map((g) => Math.exp(g));
  const meanRaw = raw.reduce((a, b) => a + b, 0) / 7;
  return {
    productId: p.productId,
    referencePrice: p.referencePrice,
    baseRate: Math.exp(at(fit.theta, 0)) * meanRaw,
    weekdayFactors: raw.map((w) => w / meanRaw),
    elasticity: Math.max(0, -at(fit.theta, PARAMS - 1)),
    stdErrors: {
      elasticity: at(fit.stdErrors, 7),
      logIntercept: at(fit.stdErrors, 0),
      weekdayLog: [0, ...fit.stdErrors.slice(1, 7)],
    },
    report: {
      rows: p.rows,
      usedRows: p.data.units.length,
      distinctPrices: p.distinctPrices,
      logPriceSd: p.logPriceSd,
      elasticitySource: source,
      dataWeight,
      signConstrained,
      converged: fit.converged,
      iterations: fit.iterations,
      notes,
    },
  };
}
