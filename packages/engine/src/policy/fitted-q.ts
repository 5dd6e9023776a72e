import seedrandom from "seedrandom";
import { initTfBackend } from "../backend/tf-backend.js";
import { nearestPriceIndex } from "../base/nearest-price.js";
import { sampleDemand } from "../market/sampling.js";
import { type DemandPmf, demandPmf, expectedCapped } from "../problem/sales-distribution.js";
import { sampleNormal, samplePoisson } from "../random/random-draws.js";
import { type ActionSpec, buildActionSpec, referencePriceOf } from "./action-space.js";
import { Adam } from "./adam.js";
import { FLUID_VALUE_FEATURE, ProductModel, STOCK_FEATURE_COLUMNS } from "./product-model.js";
import { QNetwork } from "./q-network.js";
import { RlPolicy } from "./rl-policy.js";
import {
  type ProductSetup,
  type TrainingConfig,
  type TrainingInput,
  type TrainingInputInput,
  TrainingInputSchema,
  validateTrainingInput,
} from "./training-input.js";

export interface TrainingProgress {
  readonly phase: "backward" | "final";
  /** Gradient steps done so far, and planned in total. */
  readonly step: number;
  readonly totalSteps: number;
  /** Backward-induction day just learned (counts down to 0). */
  readonly day: number;
  /** Mean squared error of the normalized Bellman targets over the last steps. */
  readonly loss: number;
  /** Mean Bellman value (currency) of the day's sampled states, summed over products: the margin still to earn. */
  readonly estimatedValue: number;
}

export interface TrainOptions {
  readonly onProgress?: (progress: TrainingProgress) => void;
  readonly signal?: AbortSignal;
  /** Milliseconds clock, injectable for tests of the time budget. */
  readonly now?: () => number;
}

/** Exploration of the simulated episodes, in log price: a per-episode bias and a daily jitter around the fluid price. */
const EXPLORE_BIAS = 0.12;
const EXPLORE_NOISE = 0.08;

/** Gradient steps between two samples of the weight average. */
const AVERAGE_EVERY = 10;

/** Largest stock grid on which the next day's value is read off the network (interpolated in between). */
const VALUE_GRID = 256;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new DOMException("training aborted", "AbortError");
  }
}

/** Lets the event loop run (abort signals, progress delivery) when training in the caller's thread. */
function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** Next-day value (currency) by stock level, one table per previous action (one only without a max change). */
type NextValues = Float64Array[];

/** The simulator the policy learns in: each product's model under one action space. */
interface Simulator {
  readonly products: { setup: ProductSetup; referencePrice: number; rates: Float32Array }[];
  readonly spec: ActionSpec;
  readonly models: readonly ProductModel[];
}

function buildSimulator(input: TrainingInput): Simulator {
  const products = input.products.map((p) => ({
    setup: p.setup,
    referencePrice: referencePriceOf(p.setup, p.referencePrice),
    rates: Float32Array.from(p.rates),
  }));
  const spec = buildActionSpec(products);
  const models = products.map((p) => new ProductModel(spec, p.setup, p.rates, p.referencePrice));
  return { products, spec, models };
}

/** Stock levels sampled per day: one for unlimited stock, none when there is nothing to sell. */
function statesPerDayOf(m: ProductModel, cfg: TrainingConfig): number {
  return m.setup.stock === null ? 1 : m.setup.stock > 0 ? cfg.statesPerDay : 0;
}

/** Budget of wall-clock seconds, measured from construction. */
class TrainingClock {
  private readonly started: number;

  constructor(
    private readonly now: () => number,
    private readonly maxSeconds: number | null,
  ) {
    this.started = now();
  }

  seconds(): number {
    return (this.now() - this.started) / 1000;
  }

  overBudget(): boolean {
    return this.maxSeconds !== null && this.seconds() > this.maxSeconds;
  }
}

/**
 * The network, its optimizer and every sampled state so far (inputs and normalized Bellman targets, one row per
 * state); each gradient step draws one minibatch from it. A row keeps only what depends on its stock level: the
 * day's inputs are read from its product's model and the loss weights (fixed per product) from one row per
 * product, so the random reads of a step touch half the memory (a 60-day, 100-product company's rows: 230 MB, not 456).
 */
class ReplayTrainer {
  readonly f: number;
  readonly a: number;
  /** Outputs per row: the marginal stock value and one advantage per action. */
  readonly out: number;
  rows = 0;
  steps = 0;
  /** Per row: its product (index into `models`), day and stock-dependent inputs (STOCK_FEATURE_COLUMNS). */
  private readonly rowModel: Int32Array;
  private readonly rowDay: Int32Array;
  private readonly stockX: Float32Array;
  /** Head inputs: [rows * A] expected margins and units today, capped by stock. */
  private readonly margins: Float32Array;
  private readonly rates: Float32Array;
  private readonly y: Float32Array;
  /** Loss weights per product, [product * out]. */
  private readonly productW: Float32Array;
  private readonly wScratch: Float32Array;
  private readonly modelIndex: Map<ProductModel, number>;
  private readonly batch: {
    x: Float32Array;
    m: Float32Array;
    r: Float32Array;
    y: Float32Array;
    w: Float32Array;
  };
  private lossSum = 0;
  private lossCount = 0;

  constructor(
    readonly net: QNetwork,
    readonly optimizer: Adam,
    private readonly models: readonly ProductModel[],
    capacity: number,
    private readonly batchSize: number,
    private readonly rng: () => number,
  ) {
    this.f = net.shape.inputs;
    this.a = net.shape.actions;
    this.out = 1 + this.a;
    this.modelIndex = new Map(models.map((m, i) => [m, i]));
    this.rowModel = new Int32Array(capacity);
    this.rowDay = new Int32Array(capacity);
    this.stockX = new Float32Array(capacity * STOCK_FEATURE_COLUMNS.length);
    this.margins = new Float32Array(capacity * this.a);
    this.rates = new Float32Array(capacity * this.a);
    this.y = new Float32Array(capacity * this.out);
    this.productW = new Float32Array(models.length * this.out);
    this.wScratch = new Float32Array(this.out);
    this.batch = {
      x: new Float32Array(batchSize * this.f),
      m: new Float32Array(batchSize * this.a),
      r: new Float32Array(batchSize * this.a),
      y: new Float32Array(batchSize * this.out),
      w: new Float32Array(batchSize * this.out),
    };
  }

  /** Stores state (day, stock) with its Bellman targets; returns the state's value (currency). */
  addState(
    m: ProductModel,
    day: number,
    stock: number,
    pmfs: readonly DemandPmf[],
    next: NextValues | null,
    memo: ActionValueMemo,
  ): number {
    const row = this.rows++;
    const p = this.modelIndex.get(m) ?? -1;
    this.rowModel[row] = p;
    this.rowDay[row] = day;
    m.writeStockFeatures(day, stock, this.stockX, row * STOCK_FEATURE_COLUMNS.length);
    m.writeHeadInputs(day, stock, this.margins, this.rates, row * this.a);
    const value = writeTargets(
      m,
      day,
      stock,
      pmfs,
      next,
      this.y,
      this.wScratch,
      row * this.out,
      -row * this.out,
      memo,
    );
    this.productW.set(this.wScratch, p * this.out);
    return value;
  }

  /** One gradient step; half of each batch is the rows from `newFrom` on (the day just computed), half replays all. */
  step(newFrom: number): void {
    const { f, a, out, batch } = this;
    const b = this.batchSize;
    const sc = STOCK_FEATURE_COLUMNS.length;
    const fresh = this.rows - newFrom;
    for (let r = 0; r < b; r++) {
      const row =
        r < b / 2 && fresh > 0
          ? newFrom + Math.floor(this.rng() * fresh)
          : Math.floor(this.rng() * this.rows);
      const p = this.rowModel[row] as number;
      const m = this.models[p] as ProductModel;
      // The input vector as `ProductModel.writeFeatures` writes it: the day's inputs, then the stock columns.
      copyRow(m.dayFeatures, batch.x, this.rowDay[row] as number, r, f);
      for (let j = 0; j < sc; j++)
        batch.x[r * f + (STOCK_FEATURE_COLUMNS[j] as number)] = this.stockX[row * sc + j] as number;
      copyRow(this.margins, batch.m, row, r, a);
      copyRow(this.rates, batch.r, row, r, a);
      copyRow(this.y, batch.y, row, r, out);
      copyRow(this.productW, batch.w, p, r, out);
    }
    const loss = this.net.trainStep(
      this.optimizer,
      { rows: b, x: batch.x, margins: batch.m, rates: batch.r },
      batch.y,
      batch.w,
    );
    this.lossSum += loss;
    this.lossCount++;
    this.steps++;
  }

  /** Mean loss of the steps since the last reset. */
  recentLoss(): number {
    return this.lossCount > 0 ? this.lossSum / this.lossCount : 0;
  }

  resetLoss(): void {
    this.lossSum = 0;
    this.lossCount = 0;
  }

  dispose(): void {
    this.net.dispose();
  }
}

/**
 * Row `from` of `src` into row `to` of `dst` (rows of `width` values). A plain loop: `set(subarray(...))` allocates
 * a view per call, and a gradient step copies five rows per sampled state (1.3 M copies for 100 products).
 */
function copyRow(src: Float32Array, dst: Float32Array, from: number, to: number, width: number): void {
  const s = from * width;
  const d = to * width;
  for (let j = 0; j < width; j++) dst[d + j] = src[s + j] as number;
}

/** A product still learning on some day, with the stock levels its simulated episodes visit each day. */
interface Learner {
  readonly model: ProductModel;
  readonly statesPerDay: number;
  /** stocks[day][j]. */
  readonly stocks: readonly (readonly number[])[];
}

/**
 * Learns one day of backward induction: Bellman targets of the day's sampled states under the network's value of
 * the next day, then gradient steps. Returns the mean value of the day's states (currency, summed over products).
 */
function learnDay(
  trainer: ReplayTrainer,
  learners: readonly Learner[],
  day: number,
  stepsPerDay: number,
): number {
  const active = learners.filter((l) => day < l.model.setup.horizon && l.statesPerDay > 0);
  const nextValues = nextDayValues(
    trainer.net,
    active.map((l) => l.model),
    day + 1,
  );
  const newFrom = trainer.rows;
  let estimatedValue = 0;
  for (const { model: m, stocks } of active) {
    const today = stocks[day] ?? [];
    const pmfs: DemandPmf[] = [];
    for (let k = 0; k < trainer.a; k++) {
      const previous = pmfs[k - 1];
      // Actions on the same grid price share one pmf (and `actionValues` then one value).
      pmfs.push(
        previous !== undefined && m.actions.priceIndex[k] === m.actions.priceIndex[k - 1]
          ? previous
          : demandPmf(m.setup, m.rateOf(day, k)),
      );
    }
    const next = nextValues.get(m) ?? null;
    // Episodes share stock levels (all of them start full) and each target also reads the level below.
    const memo: ActionValueMemo = new Map();
    for (const stock of today)
      estimatedValue += trainer.addState(m, day, stock, pmfs, next, memo) / today.length;
  }
  trainer.resetLoss();
  for (let s = 0; s < stepsPerDay && trainer.rows > 0; s++) trainer.step(newFrom);
  return estimatedValue;
}

/** Cosine decay to a tenth of the rate over the final phase: the last steps polish rather than move. */
function finalLearningRate(cfg: TrainingConfig, done: number): number {
  return cfg.learningRate * (0.1 + 0.45 * (1 + Math.cos((Math.PI * done) / cfg.finalSteps)));
}

/** Running sum of network weights, for stochastic weight averaging. */
class WeightAverage {
  private sums: Float64Array[] | null = null;
  private count = 0;

  add(weights: readonly Float32Array[]): void {
    const sums = this.sums ?? weights.map((w) => new Float64Array(w.length));
    this.sums = sums;
    weights.forEach((w, i) => {
      const acc = sums[i];
      if (!acc) return;
      w.forEach((x, j) => {
        acc[j] = (acc[j] ?? 0) + x;
      });
    });
    this.count++;
  }

  /** The mean weights, or null when nothing was added. */
  mean(): Float32Array[] | null {
    const n = this.count;
    return this.sums === null ? null : this.sums.map((acc) => Float32Array.from(acc, (x) => x / n));
  }
}

/**
 * Gradient steps over all days with a decaying rate, averaging the weights over the second half (the mean of many
 * nearby iterates has far less SGD noise than the last one); stops early once over budget. Returns the averaged
 * weights, or null when no average was taken.
 */
async function polishAllDays(
  trainer: ReplayTrainer,
  cfg: TrainingConfig,
  clock: TrainingClock,
  report: (phase: TrainingProgress["phase"], day: number) => void,
  signal: AbortSignal | undefined,
): Promise<Float32Array[] | null> {
  const chunk = 100;
  const average = new WeightAverage();
  for (let done = 0; done < cfg.finalSteps && trainer.rows > 0 && !clock.overBudget(); ) {
    throwIfAborted(signal);
    trainer.resetLoss();
    const n = Math.min(chunk, cfg.finalSteps - done);
    trainer.optimizer.learningRate = finalLearningRate(cfg, done);
    for (let s = 0; s < n; s++) {
      trainer.step(trainer.rows);
      if (done + s >= cfg.finalSteps / 2 && (done + s) % AVERAGE_EVERY === 0)
        average.add(trainer.net.toArrays());
    }
    done += n;
    report("final", 0);
    await yieldToEventLoop();
  }
  return average.mean();
}

/** A fresh network (seeded by the config) and Adam, with room for every state the training will sample. */
function createTrainer(
  models: readonly ProductModel[],
  cfg: TrainingConfig,
  rng: () => number,
): ReplayTrainer {
  const [first] = models;
  if (!first) throw new RangeError("training needs at least one product");
  const net = QNetwork.init(
    {
      inputs: first.featureCount,
      hidden: cfg.hidden,
      actions: first.actionCount,
      marginOffset: ProductModel.marginOffset,
      fluidOffset: FLUID_VALUE_FEATURE,
    },
    cfg.seed,
  );
  const optimizer = new Adam(cfg.learningRate);
  const capacity = models.reduce((sum, m) => sum + m.setup.horizon * statesPerDayOf(m, cfg), 0);
  return new ReplayTrainer(net, optimizer, models, capacity, cfg.batchSize, rng);
}

/**
 * Learns a company's pricing policy by fitted Q-iteration, backward over the selling days, in the simulator given
 * by `input` (demand rates of the fitted model, stock dynamics, guardrails). For each day it samples stock levels,
 * computes Bellman targets as exact expectations over the daily sales distribution of the one-step margin plus
 * the network's own value of the next day's state, and fits the network to them (replaying earlier days so one
 * network serves the whole horizon). Deterministic for a seed on one backend.
 */
export async function trainPolicy(
  rawInput: TrainingInputInput,
  options: TrainOptions = {},
): Promise<RlPolicy> {
  const input: TrainingInput = TrainingInputSchema.parse(rawInput);
  validateTrainingInput(input);
  const backend = await initTfBackend();
  const cfg = input.config;
  const clock = new TrainingClock(options.now ?? (() => performance.now()), cfg.maxSeconds);
  const rng = seedrandom(`fqi:${cfg.seed}`);
  const simulator = buildSimulator(input);
  const { models } = simulator;
  const trainer = createTrainer(models, cfg, rng);
  // An abort or error mid-training must still free the variables and Adam moments (not tidy-scoped).
  try {
    const learners = models.map((m) => {
      const statesPerDay = statesPerDayOf(m, cfg);
      return { model: m, statesPerDay, stocks: simulateStockPaths(m, statesPerDay, rng) };
    });
    const maxHorizon = Math.max(...models.map((m) => m.setup.horizon));
    const totalSteps = maxHorizon * cfg.stepsPerDay + cfg.finalSteps;
    let estimatedValue = 0;
    const report = (phase: TrainingProgress["phase"], day: number): void =>
      options.onProgress?.({
        phase,
        step: trainer.steps,
        totalSteps,
        day,
        loss: trainer.recentLoss(),
        estimatedValue,
      });

    // Past the budget nothing more is learned: the days not reached yet are priced by what the network learned
    // of the later ones (its inputs are relative to the days left, and an untrained head is the fluid policy).
    // Targets there would cost as much as the steps they feed (half the backward pass on 100 products).
    for (let day = maxHorizon - 1; day >= 0 && !clock.overBudget(); day--) {
      throwIfAborted(options.signal);
      estimatedValue = learnDay(trainer, learners, day, cfg.stepsPerDay);
      report("backward", day);
      await yieldToEventLoop();
    }
    const averaged = await polishAllDays(trainer, cfg, clock, report, options.signal);
    throwIfAborted(options.signal);

    const meanHorizon = models.reduce((s, m) => s + m.setup.horizon, 0) / models.length;
    return RlPolicy.create({
      companyId: input.companyId,
      actionSpec: simulator.spec,
      hidden: cfg.hidden,
      products: simulator.products,
      weights: averaged ?? trainer.net.toArrays(),
      demandModel: input.demandModel,
      training: {
        config: cfg,
        backend: backend.name,
        seconds: clock.seconds(),
        episodes: Math.round(trainer.rows / meanHorizon),
        sampledStates: trainer.rows,
        gradientSteps: trainer.steps,
        finalLoss: trainer.recentLoss(),
        estimatedValue,
      },
    });
  } finally {
    trainer.dispose();
  }
}

/**
 * Stock levels where each day is learned: where simulated episodes actually are. Episodes follow the fluid
 * bid-price heuristic with random price perturbations (exploration) and Poisson sales, from the full stock at
 * day 0; a quarter of the levels are spread evenly over [1, stock] so that the network also sees rarer states.
 * Returns stocks[day][j].
 */
function simulateStockPaths(m: ProductModel, count: number, rng: () => number): number[][] {
  const s0 = m.setup.stock;
  const h = m.setup.horizon;
  if (s0 === null) return Array.from({ length: h }, () => [Number.POSITIVE_INFINITY]);
  const even = Math.max(1, Math.floor(count / 4));
  const episodes = count - even;
  const byDay: number[][] = Array.from({ length: h }, () => []);
  const normal = (): number => sampleNormal(rng);
  const n = m.setup.prices.length;
  for (let e = 0; e < episodes; e++) {
    let stock = s0;
    // Each episode explores with its own price bias plus daily noise.
    const bias = EXPLORE_BIAS * normal();
    for (let t = 0; t < h; t++) {
      byDay[t]?.push(Math.max(1, stock));
      if (stock <= 0) continue;
      const target = m.fluidPrice(t, stock) * Math.exp(bias + EXPLORE_NOISE * normal());
      const idx = nearestPriceIndex(m.setup.prices, target);
      const rate = m.rates[t * n + idx] ?? Number.NaN;
      const sold =
        m.setup.distribution === "poisson" ? samplePoisson(rng, rate) : sampleDemand(rng, m.setup, rate);
      stock = Math.max(0, stock - sold);
    }
  }
  for (const levels of byDay) {
    for (let j = 0; j < even; j++)
      levels.push(Math.min(s0, Math.max(1, Math.round(1 + ((j + rng()) / even) * (s0 - 1)))));
  }
  return byDay;
}

/**
 * Next-day value (currency, up to a constant per product) of every integer stock level, per previous action when
 * a max daily change makes it depend on that. The network's marginal stock value is read at every level up to
 * VALUE_GRID (on an even grid above that, integrated by the trapezoid rule) in one batch and summed from 0:
 *   V(s, prev) = sum_{j<=s} mu(j) - advScale * (max over all actions of u - max over actions allowed after prev)
 * Stock 0 is worth 0, the day after the horizon nothing at all.
 */
function nextDayValues(
  net: QNetwork,
  models: readonly ProductModel[],
  day: number,
): Map<ProductModel, NextValues> {
  const result = new Map<ProductModel, NextValues>();
  const grids = new Map<ProductModel, number[]>();
  let rows = 0;
  for (const m of models) {
    if (day >= m.setup.horizon) continue;
    const grid = valueGrid(m.setup.stock);
    grids.set(m, grid);
    rows += grid.length;
  }
  if (rows === 0) return result;
  const f = net.shape.inputs;
  const a = net.shape.actions;
  // The day's inputs go through the first layer once per product; each stock level adds its few stock columns
  // (as the served policy does): the full input is 138 columns wide, the stock part 6.
  const dayInputs = new Float32Array(grids.size * f);
  let p = 0;
  for (const m of grids.keys()) dayInputs.set(m.dayFeatures.subarray(day * f, (day + 1) * f), f * p++);
  const embedded = net.embedDays(dayInputs, grids.size);
  const hidden0 = embedded.length / grids.size;
  const sc = STOCK_FEATURE_COLUMNS.length;
  const fluidAt = STOCK_FEATURE_COLUMNS.indexOf(FLUID_VALUE_FEATURE);
  const stockX = new Float32Array(rows * sc);
  const embedding = new Float32Array(rows * hidden0);
  const fluid = new Float32Array(rows);
  const margins = new Float32Array(rows * a);
  const rates = new Float32Array(rows * a);
  let r = 0;
  p = 0;
  for (const [m, grid] of grids) {
    const own = embedded.subarray(p * hidden0, (p + 1) * hidden0);
    p++;
    for (const s of grid) {
      m.writeStockFeatures(day, s, stockX, r * sc);
      embedding.set(own, r * hidden0);
      fluid[r] = stockX[r * sc + fluidAt] as number;
      m.writeHeadInputs(day, s, margins, rates, r * a);
      r++;
    }
  }
  const y = net.finishHead(
    net.predictRaw(stockX, embedding, rows, STOCK_FEATURE_COLUMNS),
    rows,
    fluid,
    margins,
    rates,
  );
  r = 0;
  for (const [m, grid] of grids) {
    result.set(m, valueTables(m, day, grid, y.subarray(r * (a + 1), (r + grid.length) * (a + 1)), a));
    r += grid.length;
  }
  return result;
}

/** Stock levels the network's marginal value is read at: every level up to VALUE_GRID, an even grid above. */
function valueGrid(stock: number | null): number[] {
  if (stock === null) return [Number.POSITIVE_INFINITY];
  if (stock <= VALUE_GRID) return Array.from({ length: stock }, (_, s) => s + 1);
  return [
    ...new Set(Array.from({ length: VALUE_GRID }, (_, g) => Math.round(((g + 1) * stock) / VALUE_GRID))),
  ];
}

/** One product's next-day value tables from the network's outputs `y` [grid.length * (1 + a)] on its grid. */
function valueTables(
  m: ProductModel,
  day: number,
  grid: readonly number[],
  y: Float32Array,
  a: number,
): NextValues {
  const allowedAfter = m.allowedAfter;
  const prevs = allowedAfter === null ? 1 : a;
  const stock = m.setup.stock;
  const finite = stock !== null;
  const advScale = m.advantageScale(day);
  const ref = m.referencePrice;
  // Free value (best action) at each grid level, then the penalty of each previous action's restricted set.
  const free = new Float64Array(grid.length);
  const penalty = Array.from({ length: prevs }, () => new Float64Array(grid.length));
  let cumulative = 0;
  let prevLevel = 0;
  let prevMu = 0;
  grid.forEach((s, g) => {
    const base = g * (a + 1);
    const mu = (y[base] ?? Number.NaN) * ref;
    if (finite) {
      const width = s - prevLevel;
      cumulative += width === 1 || g === 0 ? width * mu : (width * (mu + prevMu)) / 2;
      prevLevel = s;
      prevMu = mu;
    }
    free[g] = cumulative;
    if (allowedAfter === null) return;
    let bestAll = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < a; k++) {
      const value = y[base + 1 + k] ?? Number.NaN;
      if (m.actions.valid[k] && value > bestAll) bestAll = value;
    }
    penalty.forEach((pen, p) => {
      let best = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < a; k++) {
        const value = y[base + 1 + k] ?? Number.NaN;
        if (allowedAfter[p * a + k] && value > best) best = value;
      }
      pen[g] = best === Number.NEGATIVE_INFINITY ? 0 : advScale * (bestAll - best);
    });
  });
  return penalty.map((pen) => {
    const table = new Float64Array(finite ? stock + 1 : 1);
    if (!finite) {
      table[0] = -(pen[0] ?? Number.NaN);
      return table;
    }
    // Level 0 stays worth 0 whatever the previous price: nothing is left to sell.
    let lo = 0;
    let loValue = 0;
    grid.forEach((hi, g) => {
      const hiValue = (free[g] ?? Number.NaN) - (pen[g] ?? Number.NaN);
      for (let s = lo + 1; s <= hi; s++) table[s] = loValue + ((hiValue - loValue) * (s - lo)) / (hi - lo);
      lo = hi;
      loValue = hiValue;
    });
    return table;
  });
}

/** One product-day's action values by stock level: each level's Q of every action and the best of them. */
type ActionValueMemo = Map<number, { readonly q: Float64Array; readonly best: number }>;

/** `actionValues` of a stock level, computed once per product-day. */
function memoActionValues(
  m: ProductModel,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: NextValues | null,
  memo: ActionValueMemo,
): { readonly q: Float64Array; readonly best: number } {
  let found = memo.get(stock);
  if (found === undefined) {
    const q = new Float64Array(m.actionCount);
    found = { q, best: actionValues(m, stock, pmfs, next, q) };
    memo.set(stock, found);
  }
  return found;
}

/** Q (currency) of every action in state (day, stock) into `q`; NaN for invalid actions. Returns the best. */
function actionValues(
  m: ProductModel,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: NextValues | null,
  q: Float64Array,
): number {
  const finite = stock !== Number.POSITIVE_INFINITY;
  let best = Number.NEGATIVE_INFINITY;
  // Without a max daily change the next day's table is one for all actions: an action charging the previous
  // action's grid price has its value.
  const shared = next === null || m.allowedAfter === null;
  for (let k = 0; k < m.actionCount; k++) {
    const pmf = pmfs[k];
    if (!m.actions.valid[k] || pmf === undefined) {
      q[k] = Number.NaN;
      continue;
    }
    if (
      shared &&
      k > 0 &&
      m.actions.valid[k - 1] &&
      m.actions.priceIndex[k] === m.actions.priceIndex[k - 1]
    ) {
      q[k] = q[k - 1] as number;
      continue;
    }
    const price = m.priceOf(k);
    const margin = price === null ? 0 : price - m.setup.unitCost;
    const table = next === null ? null : (next[m.allowedAfter === null ? 0 : k] ?? null);
    let value = 0;
    if (!finite) {
      const mean = expectedCapped(pmf, stock);
      value = (price === null ? 0 : margin * mean) + (table === null ? 0 : (table[0] ?? Number.NaN));
    } else if (price === null) {
      value = table === null ? 0 : (table[stock] ?? Number.NaN);
    } else {
      let below = 0;
      const { first, probs } = pmf;
      // The hot loop of the targets: bounds hoisted, the table's presence tested once.
      const end = Math.min(probs.length, stock - first);
      if (table === null) {
        for (let j = 0; j < end; j++) {
          const p = probs[j] as number;
          value += p * (margin * (first + j) + 0);
          below += p;
        }
      } else {
        for (let j = 0; j < end; j++) {
          const p = probs[j] as number;
          const d = first + j;
          value += p * (margin * d + (table[stock - d] as number));
          below += p;
        }
      }
      value += Math.max(0, 1 - below) * margin * stock;
    }
    q[k] = value;
    if (value > best) best = value;
  }
  return best;
}

/**
 * Writes the normalized Bellman targets of state (day, stock) at `offset` of `y` and their loss weights at
 * `offset + wShift` of `w` (1 + A values each) and returns the state's value (currency, best valid action).
 * Q(a) = E[(p_a - c) min(D, s) + V_{day+1}(s - min(D, s), a)] with D the day's demand at price p_a. Targets: the
 * marginal value V(s) - V(s - 1) over the reference price, and each action's Q minus the mean over valid actions,
 * over the day's advantage scale.
 */
function writeTargets(
  m: ProductModel,
  day: number,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: NextValues | null,
  y: Float32Array,
  w: Float32Array,
  offset: number,
  wShift: number,
  memo: ActionValueMemo,
): number {
  const a = m.actionCount;
  const { q, best } = memoActionValues(m, stock, pmfs, next, memo);
  const finite = stock !== Number.POSITIVE_INFINITY;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < a; k++) {
    if (m.actions.valid[k]) {
      sum += q[k] ?? Number.NaN;
      count++;
    }
  }
  const mean = count > 0 ? sum / count : 0;
  const aScale = m.advantageScale(day);
  if (finite) {
    const below = stock > 1 ? memoActionValues(m, stock - 1, pmfs, next, memo).best : 0;
    y[offset] = (best - below) / m.referencePrice;
    w[offset + wShift] = 1;
  } else {
    y[offset] = 0;
    w[offset + wShift] = 0;
  }
  for (let k = 0; k < a; k++) {
    const valid = m.actions.valid[k] === 1;
    y[offset + 1 + k] = valid ? ((q[k] ?? Number.NaN) - mean) / aScale : 0;
    w[offset + wShift + 1 + k] = valid ? 1 / count : 0;
  }
  return best;
}
