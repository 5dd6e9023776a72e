import { withinDailyChange } from "../base/daily-change.js";
import {
  approxExpectedSales,
  approxExpectedSalesTable,
  type DemandPmf,
  demandPmf,
  demandVariance,
} from "../problem/sales-distribution.js";
import {
  type ActionSpec,
  actionCount,
  type ProductActions,
  productActions,
  referencePriceOf,
} from "./action-space.js";
import type { ProductSetup } from "./training-input.js";

/** Inputs per state besides the two per-action blocks. */
export const STATE_FEATURES = [
  "days_left_fraction",
  "log_days_left",
  "stock_over_remaining_demand",
  "unlimited_stock",
  "days_of_cover",
  "today_intensity",
  "unit_cost_over_reference",
  "log_fluid_price",
  "stock_pressure",
  "fluid_marginal_value",
] as const;

/** Columns of the inputs that depend on the stock level (all others depend on product and day only). */
export const STOCK_FEATURE_COLUMNS = [
  "stock_over_remaining_demand",
  "unlimited_stock",
  "days_of_cover",
  "log_fluid_price",
  "stock_pressure",
  "fluid_marginal_value",
].map((name) => STATE_FEATURES.indexOf(name as (typeof STATE_FEATURES)[number]));
const STOCK_SCRATCH = new Float32Array(STOCK_FEATURE_COLUMNS.length);

/** Column of the fluid marginal value, which the network's stock-value outputs are residuals on. */
export const FLUID_VALUE_FEATURE = STATE_FEATURES.indexOf("fluid_marginal_value");

/**
 * Per action, both centred over the product's valid actions: the myopic margin (currency/day over the reference
 * price times the day's demand scale) and the relative demand rate (units/day over the day's demand scale).
 */
export const ACTION_FEATURES = ["myopic_margin", "relative_rate"] as const;

export function featureCount(spec: ActionSpec): number {
  return STATE_FEATURES.length + ACTION_FEATURES.length * actionCount(spec);
}

const EPS = 1e-6;
const MAX_COVER_DAYS = 60;
const MAX_STOCK_RATIO = 3;
const MAX_RELATIVE_RATE = 12;

/**
 * One product as the network sees it: demand tables on its grid, the action mapping, the day-dependent part of
 * its input vector and the scales that turn normalized network outputs into currency. Rates are stored as
 * float32 so that a policy rebuilt from its artifact computes bit-identical inputs.
 */
export class ProductModel {
  readonly setup: ProductSetup;
  readonly referencePrice: number;
  readonly actions: ProductActions;
  readonly actionCount: number;
  readonly featureCount: number;
  /** Units per day, [day * prices + priceIndex]. */
  readonly rates: Float32Array;
  /** Demand scale of day t (units/day): the rate at the reference price, floored by a quarter of the peak. */
  readonly dayScale: Float64Array;
  /** Sum of dayScale from t to the horizon end (length horizon + 1). */
  readonly remaining: Float64Array;
  /** Day-dependent features [day * featureCount + k]; the stock slots are filled per state. */
  readonly dayFeatures: Float32Array;
  /**
   * The tables below are built on first use, not in the constructor: a planning thread builds every company's
   * policy from its artifact to price one night and reads few of them (allowedAfter only training's targets read;
   * ampleStock only the days it prices), while training reads them all.
   */
  private allowedAfterTable: Uint8Array | null | undefined;
  private remainingAtTable: Float64Array | undefined;
  /** The price actions (ascending price, valid, not shutoff) and, per day, the best constant one ignoring stock. */
  private readonly priceActions: number[];
  private unconstrainedTable: Int32Array | undefined;
  /** Stock at or above which no action can sell out on day t, NaN until asked for (`ampleStockAt`). */
  private readonly ampleStock: Float64Array;
  /**
   * Expected sales by whole stock level below `ampleStock` (`approxExpectedSalesTable`), per grid price of the days
   * last asked for: training asks day by day (the next day's stock grid, then today's states), the safety check
   * and inference likewise, so two days cover it.
   */
  private readonly salesTables = new Map<number, (Float64Array | undefined)[]>();
  /**
   * Daily demand pmfs by rate: a season's rates repeat with the weekday (273 distinct of 2,340 price-days on
   * bench:train's products), and the simulated episodes and every day's targets ask for the same few again.
   */
  private readonly pmfs = new Map<number, DemandPmf>();

  /**
   * `dayFeatures`, when given, is where the day features are written (horizon x featureCount floats, zeroed: the
   * stock slots are left as they are): a policy passes views of one buffer, which its first layer then embeds
   * without a copy.
   */
  constructor(
    spec: ActionSpec,
    setup: ProductSetup,
    rates: Float32Array,
    referencePrice?: number,
    dayFeatures?: Float32Array,
  ) {
    this.setup = setup;
    this.referencePrice = referencePriceOf(setup, referencePrice);
    this.actions = productActions(spec, setup, this.referencePrice);
    const a = actionCount(spec);
    this.actionCount = a;
    this.featureCount = featureCount(spec);
    this.rates = rates;
    const h = setup.horizon;
    const n = setup.prices.length;
    let refIdx = 0;
    for (let i = 1; i < n; i++) {
      if (
        Math.abs((setup.prices[i] ?? Number.NaN) - this.referencePrice) <
        Math.abs((setup.prices[refIdx] ?? Number.NaN) - this.referencePrice)
      ) {
        refIdx = i;
      }
    }
    this.dayScale = new Float64Array(h);
    for (let t = 0; t < h; t++) {
      let peak = 0;
      for (let i = 0; i < n; i++) peak = Math.max(peak, rates[t * n + i] ?? Number.NaN);
      this.dayScale[t] = Math.max(rates[t * n + refIdx] ?? Number.NaN, 0.25 * peak, EPS);
    }
    this.remaining = new Float64Array(h + 1);
    for (let t = h - 1; t >= 0; t--)
      this.remaining[t] = (this.remaining[t + 1] ?? Number.NaN) + (this.dayScale[t] ?? Number.NaN);

    const f = this.featureCount;
    const s0 = STATE_FEATURES.length;
    const ref = this.referencePrice;
    if (dayFeatures !== undefined && dayFeatures.length !== h * f) {
      throw new RangeError(`dayFeatures holds ${dayFeatures.length} values, expected ${h * f}`);
    }
    this.dayFeatures = dayFeatures ?? new Float32Array(h * f);
    const margin = new Float64Array(a);
    const relative = new Float64Array(a);
    const { priceIndex, valid } = this.actions;
    // Per action, its unit margin (0 - cost for no sale, whose rate is 0), looked up once rather than per day.
    const unitMargin = new Float64Array(a);
    for (let k = 0; k < a; k++) {
      const idx = priceIndex[k] ?? Number.NaN;
      unitMargin[k] = (idx < 0 ? 0 : (setup.prices[idx] ?? Number.NaN)) - setup.unitCost;
    }
    const features = this.dayFeatures;
    for (let t = 0; t < h; t++) {
      const row = t * f;
      const left = h - t;
      features[row] = left / h;
      features[row + 1] = Math.log1p(left) / Math.log1p(365);
      features[row + 5] = Math.min(
        ((this.dayScale[t] ?? Number.NaN) * left) / (this.remaining[t] ?? Number.NaN),
        5,
      );
      features[row + 6] = setup.unitCost / ref;
      let marginSum = 0;
      let rateSum = 0;
      let count = 0;
      const scale = this.dayScale[t] ?? Number.NaN;
      const denominator = ref * scale;
      const dayRates = t * n;
      for (let k = 0; k < a; k++) {
        const idx = priceIndex[k] as number;
        const rate = idx < 0 ? 0 : (rates[dayRates + idx] ?? Number.NaN);
        const m = ((unitMargin[k] as number) * rate) / denominator;
        const r = Math.min(rate / scale, MAX_RELATIVE_RATE);
        margin[k] = m;
        relative[k] = r;
        if (valid[k]) {
          marginSum += m;
          rateSum += r;
          count++;
        }
      }
      const meanMargin = count > 0 ? marginSum / count : 0;
      const meanRate = count > 0 ? rateSum / count : 0;
      const marginsAt = row + s0;
      const ratesAt = marginsAt + a;
      for (let k = 0; k < a; k++) {
        features[marginsAt + k] = (margin[k] as number) - meanMargin;
        features[ratesAt + k] = (relative[k] as number) - meanRate;
      }
    }

    this.priceActions = [];
    for (let k = 0; k < a; k++) {
      if (this.actions.valid[k] && (this.actions.priceIndex[k] ?? Number.NaN) >= 0) this.priceActions.push(k);
    }
    this.ampleStock = new Float64Array(h).fill(Number.NaN);
  }

  /** allowedAfter[prev * A + next] = 1 when `next` may follow `prev` under the max daily change. */
  get allowedAfter(): Uint8Array | null {
    if (this.allowedAfterTable === undefined) this.allowedAfterTable = this.buildAllowedAfter();
    return this.allowedAfterTable;
  }

  private buildAllowedAfter(): Uint8Array | null {
    const setup = this.setup;
    if (setup.maxDailyChange === null) return null;
    const a = this.actionCount;
    const allowed = new Uint8Array(a * a);
    for (let p = 0; p < a; p++) {
      // After a no-sale day the price before it still binds (inference and the evaluator carry it over); the
      // bootstrap, which only knows the last action, approximates it by the initial price.
      const prevPrice = this.priceOf(p) ?? setup.initialPrice;
      for (let k = 0; k < a; k++) {
        allowed[p * a + k] = this.actions.valid[k] === 1 && this.changeOk(prevPrice, this.priceOf(k)) ? 1 : 0;
      }
    }
    return allowed;
  }

  /** Expected demand from day t to the horizon end at action k's price held constant, [t * A + k]. */
  get remainingAt(): Float64Array {
    if (this.remainingAtTable === undefined) this.buildRemainingAt();
    return this.remainingAtTable as Float64Array;
  }

  private get unconstrained(): Int32Array {
    if (this.unconstrainedTable === undefined) this.buildRemainingAt();
    return this.unconstrainedTable as Int32Array;
  }

  private buildRemainingAt(): void {
    const setup = this.setup;
    const rates = this.rates;
    const a = this.actionCount;
    const h = setup.horizon;
    const n = setup.prices.length;
    const remainingAt = new Float64Array((h + 1) * a);
    const unconstrained = new Int32Array(h);
    const bernoulli = setup.distribution === "bernoulli";
    // Per price action, its grid index and unit margin, looked up once rather than per day.
    const acts = this.priceActions;
    const index = acts.map((k) => this.actions.priceIndex[k] ?? Number.NaN);
    const unitMargin = acts.map((k) => this.setPrice(k) - setup.unitCost);
    for (let t = h - 1; t >= 0; t--) {
      let bestMargin = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < acts.length; j++) {
        const k = acts[j] as number;
        const rate = rates[t * n + (index[j] as number)] ?? Number.NaN;
        const sold = (remainingAt[(t + 1) * a + k] ?? Number.NaN) + (bernoulli ? Math.min(rate, 1) : rate);
        remainingAt[t * a + k] = sold;
        const margin = sold * (unitMargin[j] as number);
        if (margin > bestMargin) {
          bestMargin = margin;
          unconstrained[t] = k;
        }
      }
    }
    this.remainingAtTable = remainingAt;
    this.unconstrainedTable = unconstrained;
  }

  /** Stock at or above which no action can sell out on day t (the head inputs then depend on the day alone). */
  private ampleStockAt(t: number): number {
    let top = this.ampleStock[t] ?? Number.NaN;
    if (!Number.isNaN(top)) return top;
    // Where `approxExpectedSales` stops counting stock-outs: 8 standard deviations of the negative binomial.
    const negative = this.setup.distribution === "negative_binomial";
    top = 0;
    for (let k = 0; k < this.actionCount; k++) {
      const rate = this.rateOf(t, k);
      const spread = negative ? demandVariance(this.setup, rate) : rate;
      top = Math.max(top, rate + 8 * Math.sqrt(spread) + 8);
    }
    this.ampleStock[t] = top;
    return top;
  }

  priceOf(action: number): number | null {
    const idx = this.actions.priceIndex[action] ?? Number.NaN;
    return idx < 0 ? null : (this.setup.prices[idx] ?? Number.NaN);
  }

  /** The price of an action known to set one (a member of `priceActions` or the unconstrained best). */
  private setPrice(action: number): number {
    return this.priceOf(action) ?? Number.NaN;
  }

  private changeOk(prev: number | null, next: number | null): boolean {
    const limit = this.setup.maxDailyChange;
    if (limit === null || prev === null || next === null) return true;
    return withinDailyChange(prev, next, limit);
  }

  /** Demand rate (units/day) of `action` on day t; 0 for no sale. */
  rateOf(t: number, action: number): number {
    const idx = this.actions.priceIndex[action] ?? Number.NaN;
    return idx < 0 ? 0 : (this.rates[t * this.setup.prices.length + idx] ?? Number.NaN);
  }

  /** `demandPmf` of the product's demand law at `rate`, built once per distinct rate (at most one per price-day). */
  demandPmfAt(rate: number): DemandPmf {
    let pmf = this.pmfs.get(rate);
    if (pmf === undefined) {
      pmf = demandPmf(this.setup, rate);
      this.pmfs.set(rate, pmf);
    }
    return pmf;
  }

  /** Currency per unit of the advantage outputs on day t. */
  advantageScale(t: number): number {
    return this.referencePrice * (this.dayScale[t] ?? Number.NaN);
  }

  /** Writes the input vector of state (t, stock) at `out[offset..]`; stock = Infinity when unlimited. */
  writeFeatures(t: number, stock: number, out: Float32Array, offset: number): void {
    const f = this.featureCount;
    out.set(this.dayFeatures.subarray(t * f, (t + 1) * f), offset);
    this.writeStockFeatures(t, stock, STOCK_SCRATCH, 0);
    STOCK_FEATURE_COLUMNS.forEach((c, j) => {
      out[offset + c] = STOCK_SCRATCH[j] ?? Number.NaN;
    });
  }

  /** Writes only the stock-dependent inputs (in STOCK_FEATURE_COLUMNS order); the rest depends on the day alone. */
  writeStockFeatures(t: number, stock: number, out: Float32Array, offset: number): void {
    const free = this.unconstrained[t] ?? Number.NaN;
    if (stock === Number.POSITIVE_INFINITY) {
      out[offset] = 1;
      out[offset + 1] = 1;
      out[offset + 2] = 1;
      out[offset + 3] = Math.log(this.setPrice(free) / this.referencePrice);
      out[offset + 4] = -1;
      out[offset + 5] = 0;
      return;
    }
    out[offset] = Math.min(stock / (this.remaining[t] ?? Number.NaN), MAX_STOCK_RATIO) / MAX_STOCK_RATIO;
    out[offset + 1] = 0;
    out[offset + 2] = Math.min(stock / (this.dayScale[t] ?? Number.NaN), MAX_COVER_DAYS) / MAX_COVER_DAYS;
    const fluid = this.fluid(t, stock);
    out[offset + 3] = Math.log(fluid.price / this.referencePrice);
    const demand = this.remainingAt[t * this.actionCount + free] ?? Number.NaN;
    out[offset + 4] = Math.max(-3, Math.min(3, Math.log(Math.max(demand, EPS) / Math.max(stock, 0.5)))) / 3;
    out[offset + 5] = fluid.marginalValue / this.referencePrice;
  }

  /**
   * The fluid (deterministic) price: the best constant price ignoring stock, raised until the expected demand
   * left in the season falls to `stock` (log-interpolated between grid prices). A classic bid-price heuristic,
   * given to the network as a feature; the learned values decide how far to follow it.
   */
  fluidPrice(t: number, stock: number): number {
    return this.fluid(t, stock).price;
  }

  /**
   * The fluid price and the fluid marginal value of stock (currency per unit): 0 when stock does not bind, else
   * the shadow price at which the clearing price is the margin-maximizing one, p (1 - 1/e) - c, with e the
   * elasticity of the season's demand between the two grid prices around it.
   */
  fluid(t: number, stock: number): { price: number; marginalValue: number } {
    const a = this.actionCount;
    const free = this.unconstrained[t] ?? Number.NaN;
    const acts = this.priceActions;
    if ((this.remainingAt[t * a + free] ?? Number.NaN) <= stock)
      return { price: this.setPrice(free), marginalValue: 0 };
    // Season demand left and price of the i-th price action (ascending price), written out rather than as closures:
    // this runs for every state the training and the safety check visit.
    const row = t * a;
    const remaining = this.remainingAt;
    let lo = acts.indexOf(free);
    let hi = acts.length - 1;
    if ((remaining[row + (acts[hi] ?? Number.NaN)] ?? Number.NaN) > stock) {
      const top = this.setPrice(acts[hi] ?? Number.NaN);
      return { price: top, marginalValue: top - this.setup.unitCost };
    }
    // Invariant: demand at acts[lo] exceeds stock, demand at acts[hi] does not (demand falls as price rises).
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if ((remaining[row + (acts[mid] ?? Number.NaN)] ?? Number.NaN) > stock) lo = mid;
      else hi = mid;
    }
    const dLo = Math.max(remaining[row + (acts[lo] ?? Number.NaN)] ?? Number.NaN, EPS);
    const dHi = Math.max(remaining[row + (acts[hi] ?? Number.NaN)] ?? Number.NaN, EPS);
    const pLo = this.setPrice(acts[lo] ?? Number.NaN);
    const pHi = this.setPrice(acts[hi] ?? Number.NaN);
    const frac =
      dLo === dHi ? 1 : (Math.log(dLo) - Math.log(Math.max(stock, EPS))) / (Math.log(dLo) - Math.log(dHi));
    const price = Math.exp(Math.log(pLo) + frac * (Math.log(pHi) - Math.log(pLo)));
    const elasticity = (Math.log(dLo) - Math.log(dHi)) / (Math.log(pHi) - Math.log(pLo));
    const cost = this.setup.unitCost;
    const marginalValue = elasticity > 1 ? Math.max(0, price * (1 - 1 / elasticity) - cost) : price - cost;
    return { price, marginalValue: Math.min(marginalValue, price - cost) };
  }

  /**
   * The head's per-action inputs in state (t, stock), both centred over valid actions: the expected margin today
   * and the expected units sold today, with sales capped by the stock (over the reference price x day scale and
   * over the day scale). `margins` and `rates` receive A values each at `offset`.
   */
  writeHeadInputs(
    t: number,
    stock: number,
    margins: Float32Array,
    rates: Float32Array,
    offset: number,
  ): void {
    const a = this.actionCount;
    const f = this.featureCount;
    const base = t * f + STATE_FEATURES.length;
    if (stock >= this.ampleStockAt(t)) {
      margins.set(this.dayFeatures.subarray(base, base + a), offset);
      rates.set(this.dayFeatures.subarray(base + a, base + 2 * a), offset);
      return;
    }
    const scale = this.dayScale[t] ?? Number.NaN;
    let marginSum = 0;
    let rateSum = 0;
    let count = 0;
    const { priceIndex, valid } = this.actions;
    const prices = this.setup.prices;
    const unitCost = this.setup.unitCost;
    const denominator = this.referencePrice * scale;
    // Neighbouring actions often charge the same grid price (the shared grid is finer than a product's own):
    // their expected sales are computed once.
    let lastIndex = -2;
    let lastSold = 0;
    for (let k = 0; k < a; k++) {
      const index = priceIndex[k] as number;
      let margin = 0;
      let sold = 0;
      if (index >= 0) {
        const price = prices[index] as number;
        sold = index === lastIndex ? lastSold : this.expectedSales(t, index, stock);
        margin = ((price - unitCost) * sold) / denominator;
      }
      lastIndex = index;
      lastSold = sold;
      const relative = Math.min(sold / scale, MAX_RELATIVE_RATE);
      margins[offset + k] = margin;
      rates[offset + k] = relative;
      if (valid[k]) {
        marginSum += margin;
        rateSum += relative;
        count++;
      }
    }
    const meanMargin = count > 0 ? marginSum / count : 0;
    const meanRate = count > 0 ? rateSum / count : 0;
    for (let k = 0; k < a; k++) {
      margins[offset + k] = (margins[offset + k] as number) - meanMargin;
      rates[offset + k] = (rates[offset + k] as number) - meanRate;
    }
  }

  /** approxExpectedSales at grid price `index` on day t: whole stock levels read a table built once per price-day. */
  private expectedSales(t: number, index: number, stock: number): number {
    const rate = this.rates[t * this.setup.prices.length + index] as number;
    if (!Number.isInteger(stock)) return approxExpectedSales(this.setup, rate, stock);
    let tables = this.salesTables.get(t);
    if (tables === undefined) {
      if (this.salesTables.size >= 2) this.salesTables.delete(this.salesTables.keys().next().value as number);
      tables = [];
      this.salesTables.set(t, tables);
    }
    let table = tables[index];
    if (table === undefined) {
      table = approxExpectedSalesTable(this.setup, rate, Math.ceil(this.ampleStockAt(t)));
      tables[index] = table;
    }
    return stock >= 0 && stock < table.length
      ? (table[stock] as number)
      : approxExpectedSales(this.setup, rate, stock);
  }

  /** Offset of the centred myopic margins inside an input vector. */
  static readonly marginOffset = STATE_FEATURES.length;
}
