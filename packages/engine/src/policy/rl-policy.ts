import { expectedSales } from "../demand/sales-distribution.js";
import type { ProductPolicy } from "../problem/pricing-problem.js";
import { SHUTOFF } from "../problem/pricing-problem.js";
import type { RuleParams } from "../rule/rule-price.js";
import { type ActionSpec, actionCount } from "./action-space.js";
import { FLUID_VALUE_FEATURE, ProductModel, STOCK_FEATURE_COLUMNS } from "./product-model.js";
import { QNetwork } from "./q-network.js";
import { RuleFallback } from "./rule-fallback.js";
import type { ProductSetup, TrainingConfig } from "./training-input.js";

/** How a policy was trained, kept in its artifact. */
export interface TrainingSummary {
  readonly config: TrainingConfig;
  readonly backend: string;
  readonly seconds: number;
  /** Sampled states divided by the horizon: full-horizon episodes' worth of simulated experience. */
  readonly episodes: number;
  readonly sampledStates: number;
  readonly gradientSteps: number;
  readonly finalLoss: number;
  /** The network's own estimate of the expected margin from day 0 at full stock, summed over products. */
  readonly estimatedValue: number;
}

/** Everything a policy is made of: plain data, so it can be written to and rebuilt from an artifact. */
export interface RlPolicyData {
  readonly companyId: string;
  readonly actionSpec: ActionSpec;
  readonly hidden: readonly number[];
  readonly products: readonly { setup: ProductSetup; referencePrice: number; rates: Float32Array }[];
  /** Network weights, [kernel0, bias0, kernel1, bias1, ...], row-major float32. */
  readonly weights: readonly Float32Array[];
  readonly training: TrainingSummary;
  /** Fitted demand-model parameters (plain JSON), carried into the manifest untouched. */
  readonly demandModel?: unknown;
  /** Set when the policy was loaded from an artifact. */
  readonly modelId?: string;
  /**
   * Products priced by the rule instead of the network, by product id (the safety check found no confident
   * improvement over the rule for them; see `safe-improvement.ts`).
   */
  readonly ruleFallbacks?: Readonly<Record<string, RuleParams>>;
}

/** A company's state on `today`: stock left (null = unlimited) and the price charged last, per product. */
export interface CompanyState {
  readonly today: string;
  readonly products: readonly { productId: string; stock: number | null; lastPrice: number | null }[];
}

/** One planned price: exact for today's state on the first date, then the plan under expected sales. */
export interface PlannedPrice {
  readonly productId: string;
  readonly date: string;
  /** Currency units; null when the policy chose not to sell (shutoff). */
  readonly price: number | null;
  readonly priceIndex: number;
  /** Stock at the start of the day (Infinity when unlimited). */
  readonly stockBefore: number;
  /** Expected units sold that day, capped by stock. */
  readonly expectedUnits: number;
  readonly expectedRevenue: number;
}

/** A batch of states to price, as parallel typed arrays (the inference hot path). */
export interface StateBatch {
  readonly product: Int32Array;
  readonly day: Int32Array;
  /** Units left; Infinity when unlimited. */
  readonly stock: Float64Array;
  /** Price charged the day before; NaN when unknown (the max daily change then applies to the initial price). */
  readonly prevPrice: Float64Array;
}

const DAY_MS = 86_400_000;
const EVALUATE_CHUNK = 1024;

function dayIndex(startDate: string, date: string): number {
  const a = Date.parse(`${startDate}T00:00:00Z`);
  const b = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(a) || Number.isNaN(b))
    throw new RangeError(`invalid date: ${Number.isNaN(b) ? date : startDate}`);
  return Math.round((b - a) / DAY_MS);
}
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The trained pricing policy of one company: a Q-network shared by its products, read greedily under each
 * product's action mask (guardrails, shutoff, max daily change).
 */
export class RlPolicy {
  readonly data: RlPolicyData;
  readonly products: readonly ProductModel[];
  readonly network: QNetwork;
  private readonly byId: Map<string, number>;
  /** First-layer response to the day-only inputs, [(embeddingStart[product] + day) * hidden0 + j]. */
  private readonly embedding: Float32Array;
  private readonly embeddingStart: number[];
  private readonly dates: string[];
  /** Per product index: the rule it falls back to, or undefined when the network prices it. */
  private readonly fallbacks: (RuleFallback | undefined)[];

  private constructor(data: RlPolicyData) {
    this.data = data;
    this.products = data.products.map(
      (p) => new ProductModel(data.actionSpec, p.setup, p.rates, p.referencePrice),
    );
    const ruled = data.ruleFallbacks ?? {};
    for (const id of Object.keys(ruled)) {
      if (!data.products.some((p) => p.setup.productId === id)) {
        throw new RangeError(`rule fallback for unknown product ${id}`);
      }
    }
    this.fallbacks = data.products.map((p) => {
      const params = ruled[p.setup.productId];
      return params === undefined ? undefined : new RuleFallback(p.setup, p.rates, params);
    });
    const first = this.products[0]!;
    this.network = QNetwork.fromArrays(
      {
        inputs: first.featureCount,
        hidden: data.hidden,
        actions: actionCount(data.actionSpec),
        marginOffset: ProductModel.marginOffset,
        fluidOffset: FLUID_VALUE_FEATURE,
      },
      data.weights,
    );
    this.byId = new Map(this.products.map((p, i) => [p.setup.productId, i]));
    // Day-only inputs of every (product, day), pushed through the first layer once.
    this.embeddingStart = [];
    let rows = 0;
    for (const m of this.products) {
      this.embeddingStart.push(rows);
      rows += m.setup.horizon;
    }
    const dayInputs = new Float32Array(rows * first.featureCount);
    this.products.forEach((m, i) => {
      dayInputs.set(m.dayFeatures, this.embeddingStart[i]! * first.featureCount);
    });
    this.embedding = this.network.embedDays(dayInputs, rows);
    const horizon = Math.max(...this.products.map((m) => m.setup.horizon));
    this.dates = Array.from({ length: horizon }, (_, t) => addDays(first.setup.startDate, t));
  }

  static create(data: RlPolicyData): RlPolicy {
    return new RlPolicy(data);
  }

  /** The same policy with these products priced by the rule (a new instance: dispose both). */
  withRuleFallbacks(fallbacks: Readonly<Record<string, RuleParams>>): RlPolicy {
    return new RlPolicy({ ...this.data, ruleFallbacks: fallbacks });
  }

  /** Whether the product is priced by the rule fallback rather than the network. */
  usesRule(productId: string): boolean {
    return this.fallbacks[this.productIndex(productId)] !== undefined;
  }

  get companyId(): string {
    return this.data.companyId;
  }

  get modelId(): string | null {
    return this.data.modelId ?? null;
  }

  get startDate(): string {
    return this.products[0]!.setup.startDate;
  }

  productIndex(productId: string): number {
    const i = this.byId.get(productId);
    if (i === undefined) throw new RangeError(`unknown product ${productId}`);
    return i;
  }

  /**
   * Raw network outputs for a batch of (product, day, stock) states: per row the value and one advantage per
   * action (normalized units). One batched forward pass.
   */
  evaluate(product: Int32Array, day: Int32Array, stock: Float64Array): Float32Array {
    const rows = product.length;
    if (rows <= EVALUATE_CHUNK) return this.evaluateChunk(product, day, stock);
    // Big batches go through in cache-sized chunks: measured faster per price than one huge forward pass.
    const width = 1 + this.network.shape.actions;
    const out = new Float32Array(rows * width);
    for (let from = 0; from < rows; from += EVALUATE_CHUNK) {
      const to = Math.min(rows, from + EVALUATE_CHUNK);
      out.set(
        this.evaluateChunk(product.subarray(from, to), day.subarray(from, to), stock.subarray(from, to)),
        from * width,
      );
    }
    return out;
  }

  private evaluateChunk(product: Int32Array, day: Int32Array, stock: Float64Array): Float32Array {
    const rows = product.length;
    const hidden0 = this.data.hidden[0]!;
    const a = this.network.shape.actions;
    const sc = STOCK_FEATURE_COLUMNS.length;
    const stockX = new Float32Array(rows * sc);
    const emb = new Float32Array(rows * hidden0);
    for (let r = 0; r < rows; r++) {
      const i = product[r]!;
      const model = this.products[i];
      const t = day[r]!;
      if (model === undefined || !(t >= 0 && t < model.setup.horizon)) {
        throw new RangeError(`state ${r}: product ${i} day ${t} is outside the policy`);
      }
      model.writeStockFeatures(t, stock[r]!, stockX, r * sc);
      const e = (this.embeddingStart[i]! + t) * hidden0;
      emb.set(this.embedding.subarray(e, e + hidden0), r * hidden0);
    }
    const raw = this.network.predictRaw(stockX, emb, rows, STOCK_FEATURE_COLUMNS);
    // The structured head in plain arithmetic: u_a = margin_a - kappa * rate_a + residual_a.
    const out = new Float32Array(rows * (1 + a));
    const fluidAt = STOCK_FEATURE_COLUMNS.indexOf(FLUID_VALUE_FEATURE);
    const margins = new Float32Array(a);
    const rates = new Float32Array(a);
    for (let r = 0; r < rows; r++) {
      const model = this.products[product[r]!]!;
      model.writeHeadInputs(day[r]!, stock[r]!, margins, rates, 0);
      const fluid = stockX[r * sc + fluidAt]!;
      const rb = r * (2 + a);
      const ob = r * (1 + a);
      out[ob] = raw[rb]! + fluid;
      const kappa = raw[rb + 1]! + fluid;
      for (let k = 0; k < a; k++) out[ob + 1 + k] = margins[k]! - kappa * rates[k]! + raw[rb + 2 + k]!;
    }
    return out;
  }

  /**
   * The valid action with the highest advantage in `out` at row `r` among those the max daily change allows after
   * `prevPrice`.
   */
  private greedy(model: ProductModel, out: Float32Array, r: number, prevPrice: number | null): number {
    const a = model.actionCount;
    const base = r * (a + 1) + 1;
    let best = -1;
    let bestQ = Number.NEGATIVE_INFINITY;
    const limit = model.setup.maxDailyChange;
    for (let k = 0; k < a; k++) {
      if (!model.actions.valid[k]) continue;
      if (limit !== null && prevPrice !== null) {
        const p = model.priceOf(k);
        if (p !== null && Math.abs(p / prevPrice - 1) > limit + 1e-9) continue;
      }
      const q = out[base + k]!;
      if (q > bestQ) {
        bestQ = q;
        best = k;
      }
    }
    if (best >= 0) return best;
    // Nothing reachable within the limit (an off-grid last price): the closest valid price.
    let closest = 0;
    let gap = Number.POSITIVE_INFINITY;
    for (let k = 0; k < a; k++) {
      const p = model.priceOf(k);
      if (!model.actions.valid[k] || p === null) continue;
      const g = Math.abs(Math.log(p / (prevPrice ?? p)));
      if (g < gap) {
        gap = g;
        closest = k;
      }
    }
    return closest;
  }

  /**
   * Prices a batch of states in one forward pass: the grid index (-1 = no sale) per state. `prevPrice` NaN means
   * "use the product's initial price" for the max daily change.
   */
  priceStates(batch: StateBatch): Int32Array {
    const out = this.evaluate(batch.product, batch.day, batch.stock);
    const result = new Int32Array(batch.product.length);
    for (let r = 0; r < result.length; r++) {
      const model = this.products[batch.product[r]!]!;
      const prev = batch.prevPrice[r]!;
      const rule = this.fallbacks[batch.product[r]!];
      if (rule !== undefined) {
        result[r] = rule.index(batch.day[r]!, batch.stock[r]!, Number.isNaN(prev) ? null : prev);
        continue;
      }
      const action = this.greedy(model, out, r, Number.isNaN(prev) ? model.setup.initialPrice : prev);
      result[r] = model.actions.priceIndex[action]!;
    }
    return result;
  }

  /**
   * The policy for one product as a `ProductPolicy` (grid index per day, stock, previous index), for exact
   * evaluation. Each day's decisions for every stock level are computed in one batch on first use.
   */
  productPolicy(productId: string): ProductPolicy {
    const i = this.productIndex(productId);
    const rule = this.fallbacks[i];
    if (rule !== undefined) return rule.policy;
    const model = this.products[i]!;
    const setup = model.setup;
    const finite = setup.stock !== null;
    const levels = finite ? setup.stock! + 1 : 1;
    const cache = new Map<number, Float32Array>();
    const outputsOf = (day: number): Float32Array => {
      let out = cache.get(day);
      if (out === undefined) {
        const stock = new Float64Array(levels);
        for (let s = 0; s < levels; s++) stock[s] = finite ? s : Number.POSITIVE_INFINITY;
        out = this.evaluate(new Int32Array(levels).fill(i), new Int32Array(levels).fill(day), stock);
        cache.set(day, out);
      }
      return out;
    };
    return (day, stock, prevPriceIndex) => {
      const prevPrice = prevPriceIndex >= 0 ? (setup.prices[prevPriceIndex] ?? null) : setup.initialPrice;
      let out: Float32Array;
      let row = 0;
      if (!finite || (Number.isInteger(stock) && stock >= 0 && stock < levels)) {
        out = outputsOf(day);
        row = finite ? stock : 0;
      } else {
        out = this.evaluate(Int32Array.of(i), Int32Array.of(day), Float64Array.of(stock));
      }
      const action = this.greedy(model, out, row, prevPrice);
      const idx = model.actions.priceIndex[action]!;
      return idx < 0 ? SHUTOFF : idx;
    };
  }

  /**
   * Prices every product for every date of [startDate, endDate] (inclusive, clipped to today and the horizon),
   * rolling stock forward by expected sales: one batched forward pass per day. Sorted by date, then product id.
   */
  recommend(state: CompanyState, range: { startDate?: string; endDate?: string } = {}): PlannedPrice[] {
    const today = dayIndex(this.startDate, state.today);
    const from = Math.max(
      today,
      range.startDate === undefined ? today : dayIndex(this.startDate, range.startDate),
      0,
    );
    const lastDay = Math.max(...this.products.map((p) => p.setup.horizon)) - 1;
    const to = Math.min(
      range.endDate === undefined ? lastDay : dayIndex(this.startDate, range.endDate),
      lastDay,
    );
    const rows = state.products
      .map((p) => ({ index: this.productIndex(p.productId), stock: p.stock, lastPrice: p.lastPrice }))
      .sort((a, b) =>
        this.products[a.index]!.setup.productId < this.products[b.index]!.setup.productId ? -1 : 1,
      );
    const stock = rows.map((r) => (r.stock === null ? Number.POSITIVE_INFINITY : Math.max(0, r.stock)));
    const prev = rows.map((r) => r.lastPrice);
    const plan: PlannedPrice[] = [];
    for (let t = Math.max(today, 0); t <= to; t++) {
      const active = rows.map((_, k) => k).filter((k) => t < this.products[rows[k]!.index]!.setup.horizon);
      if (active.length === 0) continue;
      const out = this.evaluate(
        Int32Array.from(active, (k) => rows[k]!.index),
        new Int32Array(active.length).fill(t),
        Float64Array.from(active, (k) => stock[k]!),
      );
      active.forEach((k, r) => {
        const model = this.products[rows[k]!.index]!;
        const fallback = t === 0 ? model.setup.initialPrice : null;
        const s = stock[k]!;
        const rule = this.fallbacks[rows[k]!.index];
        let priceIndex: number;
        if (rule !== undefined) {
          priceIndex = rule.index(t, s, prev[k] ?? fallback);
        } else {
          priceIndex = model.actions.priceIndex[this.greedy(model, out, r, prev[k] ?? fallback)]!;
        }
        const price = priceIndex < 0 ? null : model.setup.prices[priceIndex]!;
        const rate = priceIndex < 0 ? 0 : model.rates[t * model.setup.prices.length + priceIndex]!;
        const units = price === null ? 0 : expectedSales(model.setup.distribution, rate, s);
        if (t >= from) {
          plan.push({
            productId: model.setup.productId,
            date: this.dates[t]!,
            price,
            priceIndex,
            stockBefore: s,
            expectedUnits: units,
            expectedRevenue: price === null ? 0 : units * price,
          });
        }
        stock[k] = s - units;
        if (price !== null) prev[k] = price;
      });
    }
    return plan;
  }

  dispose(): void {
    this.network.dispose();
  }
}
