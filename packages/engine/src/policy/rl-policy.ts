import { daysBetween } from "../base/calendar.js";
import { withinDailyChange } from "../base/daily-change.js";
import type { ProductPolicy } from "../problem/pricing-problem.js";
import { SHUTOFF } from "../problem/pricing-problem.js";
import { expectedSales } from "../problem/sales-distribution.js";
import type { RuleParams } from "../rule/rule-price.js";
import { type ActionSpec, actionCount } from "./action-space.js";
import { countForwardPass, countPolicyBuilt } from "./policy-activity.js";
import { FLUID_VALUE_FEATURE, featureCount, ProductModel, STOCK_FEATURE_COLUMNS } from "./product-model.js";
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

/** A batch of states to price, as parallel typed arrays (the inference hot path). */
export interface StateBatch {
  readonly product: Int32Array;
  readonly day: Int32Array;
  /** Units left; Infinity when unlimited. */
  readonly stock: Float64Array;
  /** Price charged the day before; NaN when unknown (the max daily change then applies to the initial price). */
  readonly prevPrice: Float64Array;
}

const EVALUATE_CHUNK = 1024;

/**
 * Stock levels a decider computes at once: an exact evaluation reaches only the levels near the season's path on
 * each day, and a block costs a few tfjs calls (tens of microseconds each) on top of its rows.
 */
const DECIDER_BLOCK = 128;

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
  private readonly embeddingStart: Int32Array;
  private readonly first: ProductModel;
  /** Per product index: the rule it falls back to, or undefined when the network prices it. */
  private readonly fallbacks: (RuleFallback | undefined)[];

  private constructor(data: RlPolicyData) {
    this.data = data;
    // Every product's day features are written into one buffer, the first layer's input below.
    const inputs = featureCount(data.actionSpec);
    const flat = new Float32Array(data.products.reduce((rows, p) => rows + p.setup.horizon, 0) * inputs);
    this.embeddingStart = new Int32Array(data.products.length);
    let rows = 0;
    this.products = data.products.map((p, i) => {
      this.embeddingStart[i] = rows;
      const features = flat.subarray(rows * inputs, (rows + p.setup.horizon) * inputs);
      rows += p.setup.horizon;
      return new ProductModel(data.actionSpec, p.setup, p.rates, p.referencePrice, features);
    });
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
    const first = this.products[0];
    if (first === undefined) throw new RangeError("a policy needs at least one product");
    this.first = first;
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
    this.embedding = this.network.embedDays(flat, rows);
    countPolicyBuilt();
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

  /** Day 0 of every product's horizon (the day the policy was trained for). */
  get startDate(): string {
    return this.first.setup.startDate;
  }

  productIndex(productId: string): number {
    const i = this.byId.get(productId);
    if (i === undefined) throw new RangeError(`unknown product ${productId}`);
    return i;
  }

  /** The product's index, or undefined when the policy does not know it. */
  findProduct(productId: string): number | undefined {
    return this.byId.get(productId);
  }

  /**
   * The policy's day index of `date` for product `i` when its horizon covers that date, else undefined (before the
   * policy's start date or past the product's horizon).
   */
  dayOf(i: number, date: string): number | undefined {
    const model = this.products[i];
    if (model === undefined) return undefined;
    const t = daysBetween(model.setup.startDate, date);
    return t >= 0 && t < model.setup.horizon ? t : undefined;
  }

  /** Days product `i` is priced for from the start date. */
  horizonOf(i: number): number {
    return this.modelAt(i).setup.horizon;
  }

  /** The product's price at grid index `priceIndex` (currency units); null for -1 (no sale). */
  priceAt(i: number, priceIndex: number): number | null {
    return this.modelAt(i).setup.prices[priceIndex] ?? null;
  }

  /** Expected units sold on day `t` at grid index `priceIndex` with `stock` left, under the policy's own model. */
  expectedUnits(i: number, t: number, priceIndex: number, stock: number): number {
    const model = this.modelAt(i);
    if (priceIndex < 0) return 0;
    const rate = model.rates[t * model.setup.prices.length + priceIndex] ?? 0;
    return expectedSales(model.setup, rate, stock);
  }

  private modelAt(i: number): ProductModel {
    const model = this.products[i];
    if (model === undefined) throw new RangeError(`unknown product index ${i}`);
    return model;
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
    const hidden0 = this.network.shape.hidden[0] ?? 0;
    const a = this.network.shape.actions;
    const sc = STOCK_FEATURE_COLUMNS.length;
    const stockX = new Float32Array(rows * sc);
    const emb = new Float32Array(rows * hidden0);
    const models: ProductModel[] = [];
    // A decider's block is one product-day: its embedding row is looked up once, not a view per state.
    let lastAt = -1;
    let own = this.embedding.subarray(0, hidden0);
    for (let r = 0; r < rows; r++) {
      const i = product[r] ?? -1;
      const model = this.products[i];
      const t = day[r] ?? -1;
      if (model === undefined || !(t >= 0 && t < model.setup.horizon)) {
        throw new RangeError(`state ${r}: product ${i} day ${t} is outside the policy`);
      }
      models.push(model);
      model.writeStockFeatures(t, stock[r] ?? 0, stockX, r * sc);
      const e = ((this.embeddingStart[i] ?? 0) + t) * hidden0;
      if (e !== lastAt) {
        own = this.embedding.subarray(e, e + hidden0);
        lastAt = e;
      }
      emb.set(own, r * hidden0);
    }
    countForwardPass();
    const raw = this.network.predictRaw(stockX, emb, rows, STOCK_FEATURE_COLUMNS);
    const fluidAt = STOCK_FEATURE_COLUMNS.indexOf(FLUID_VALUE_FEATURE);
    const fluid = new Float32Array(rows);
    const margins = new Float32Array(rows * a);
    const rates = new Float32Array(rows * a);
    models.forEach((model, r) => {
      model.writeHeadInputs(day[r] ?? 0, stock[r] ?? 0, margins, rates, r * a);
      fluid[r] = stockX[r * sc + fluidAt] ?? 0;
    });
    return this.network.finishHead(raw, rows, fluid, margins, rates);
  }

  /**
   * The valid action with the highest advantage in `out` at row `r` among those the max daily change allows after
   * `prevPrice`.
   */
  private greedy(model: ProductModel, out: Float32Array, r: number, prevPrice: number | null): number {
    const a = model.actionCount;
    const base = r * (a + 1) + 1;
    const valid = model.actions.valid;
    let best = -1;
    let bestQ = Number.NEGATIVE_INFINITY;
    const limit = model.setup.maxDailyChange;
    for (let k = 0; k < a; k++) {
      if (valid[k] !== 1) continue;
      if (limit !== null && prevPrice !== null) {
        const p = model.priceOf(k);
        if (p !== null && !withinDailyChange(prevPrice, p, limit)) continue;
      }
      const q = out[base + k] ?? Number.NEGATIVE_INFINITY;
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
      if (valid[k] !== 1 || p === null) continue;
      const g = Math.abs(Math.log(p / (prevPrice ?? p)));
      if (g < gap) {
        gap = g;
        closest = k;
      }
    }
    return closest;
  }

  /**
   * The decision for row `r` of the network outputs `out`: product `i` on day `t` with `stock` left after
   * `prevPrice` (null: the product's initial price). A grid index, -1 = no sale.
   */
  private decide(
    out: Float32Array,
    r: number,
    i: number,
    t: number,
    stock: number,
    prevPrice: number | null,
  ): number {
    const rule = this.fallbacks[i];
    if (rule !== undefined) return rule.index(t, stock, prevPrice);
    const model = this.modelAt(i);
    const action = this.greedy(model, out, r, prevPrice ?? model.setup.initialPrice);
    return model.actions.priceIndex[action] ?? -1;
  }

  /**
   * Prices a batch of states in one forward pass: the grid index (-1 = no sale) per state. `prevPrice` NaN means
   * "use the product's initial price" for the max daily change.
   */
  priceStates(batch: StateBatch): Int32Array {
    const out = this.evaluate(batch.product, batch.day, batch.stock);
    const result = new Int32Array(batch.product.length);
    for (let r = 0; r < result.length; r++) {
      const prev = batch.prevPrice[r] ?? Number.NaN;
      result[r] = this.decide(
        out,
        r,
        batch.product[r] ?? -1,
        batch.day[r] ?? -1,
        batch.stock[r] ?? 0,
        Number.isNaN(prev) ? null : prev,
      );
    }
    return result;
  }

  /**
   * Product `i`'s decision (grid index, -1 = no sale) per (day, stock, previous price; null = the initial price),
   * for exact evaluation: each day's network outputs for whole stock levels are computed on first use, up to
   * DECIDER_BLOCK levels from the one asked for in one batch, and kept.
   */
  decider(i: number): (day: number, stock: number, prevPrice: number | null) => number {
    const model = this.modelAt(i);
    const rule = this.fallbacks[i];
    if (rule !== undefined) return (day, stock, prevPrice) => rule.index(day, stock, prevPrice);
    const capacity = model.setup.stock;
    const levels = capacity === null ? 1 : capacity + 1;
    const width = 1 + this.network.shape.actions;
    const cache = new Map<number, { out: Float32Array; done: Uint8Array }>();
    const outputsOf = (day: number, level: number): Float32Array => {
      let entry = cache.get(day);
      if (entry === undefined) {
        entry = { out: new Float32Array(levels * width), done: new Uint8Array(levels) };
        cache.set(day, entry);
      }
      if (entry.done[level] !== 1) {
        // From the level asked up: an evaluation asks for a day's levels lowest first, so a block starting there
        // holds fewer unreachable levels than one aligned to multiples of its size (60 % of them used, not 40 %).
        const from = level;
        let n = 0;
        while (n < DECIDER_BLOCK && from + n < levels && entry.done[from + n] !== 1) n++;
        const stock = new Float64Array(n);
        for (let s = 0; s < n; s++) stock[s] = capacity === null ? Number.POSITIVE_INFINITY : from + s;
        entry.out.set(
          this.evaluate(new Int32Array(n).fill(i), new Int32Array(n).fill(day), stock),
          from * width,
        );
        entry.done.fill(1, from, from + n);
      }
      return entry.out;
    };
    return (day, stock, prevPrice) => {
      if (capacity === null || (Number.isInteger(stock) && stock >= 0 && stock < levels)) {
        const level = capacity === null ? 0 : stock;
        return this.decide(outputsOf(day, level), level, i, day, stock, prevPrice);
      }
      const out = this.evaluate(Int32Array.of(i), Int32Array.of(day), Float64Array.of(stock));
      return this.decide(out, 0, i, day, stock, prevPrice);
    };
  }

  /**
   * The policy for one product on its own training problem as a `ProductPolicy` (grid index per day, stock,
   * previous index), for exact evaluation of the raw policy (the served one is `planPolicy`).
   */
  productPolicy(productId: string): ProductPolicy {
    const i = this.productIndex(productId);
    const rule = this.fallbacks[i];
    if (rule !== undefined) return rule.policy;
    const setup = this.modelAt(i).setup;
    const decide = this.decider(i);
    return (day, stock, prevPriceIndex) => {
      const prevPrice = prevPriceIndex >= 0 ? (setup.prices[prevPriceIndex] ?? null) : setup.initialPrice;
      const idx = decide(day, stock, prevPrice);
      return idx < 0 ? SHUTOFF : idx;
    };
  }

  dispose(): void {
    this.network.dispose();
  }
}
