import seedrandom from "seedrandom";
import { initTfBackend } from "../backend/tf-backend.js";
import { nearestPriceIndex } from "../base/nearest-price.js";
import { sampleDemand } from "../market/sampling.js";
import { sampleNormal, samplePoisson } from "../random/random-draws.js";
import { Adam } from "./adam.js";
import { dayTargets, type ProductDayRows } from "./bellman-targets.js";
import { FLUID_VALUE_FEATURE, ProductModel, STOCK_FEATURE_COLUMNS } from "./product-model.js";
import { QNetwork } from "./q-network.js";
import {
  type BatchJob,
  BatchPipe,
  createReplayMemory,
  createStepSlot,
  gatherStep,
  type ReplayMemory,
  type StepSlot,
} from "./replay-batches.js";
import { RlPolicy } from "./rl-policy.js";
import { buildSimulator } from "./simulator.js";
import { epochMs, startTargetsThread, type TargetsThread } from "./targets-in-worker.js";
import {
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
  /**
   * Threads computing the backward pass's targets (and, in `trainArtifact`, the safety check): 1 or 2, the same
   * policy bit for bit. Default: 2 from THREADS_FROM_PRODUCTS products on, the second joining once it has started;
   * 2 given here waits for it from the first day.
   */
  readonly threads?: 1 | 2;
}

/**
 * Products from which a second thread computes most of each day's targets (its `targetShare`) by default: it costs about
 * a second of start-up (loading the engine and TensorFlow in the thread) and takes about a second of targets off this
 * thread per 20 products on a 60-day season.
 */
const THREADS_FROM_PRODUCTS = 20;

/** Threads a training of `products` products runs on (the safety check's included, see `trainArtifact`). */
export function trainingThreads(options: Pick<TrainOptions, "threads">, products: number): 1 | 2 {
  return options.threads ?? (products >= THREADS_FROM_PRODUCTS ? 2 : 1);
}

/** Exploration of the simulated episodes, in log price: a per-episode bias and a daily jitter around the fluid price. */
const EXPLORE_BIAS = 0.12;
const EXPLORE_NOISE = 0.08;

/** Gradient steps between two samples of the weight average. */
const AVERAGE_EVERY = 10;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new DOMException("training aborted", "AbortError");
  }
}

/** Lets the event loop run (abort signals, progress delivery) when training in the caller's thread. */
function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
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

/** Gradient steps of the final phase between two looks at the budget and the event loop. */
const FINAL_CHUNK = 100;

/**
 * The network, its optimizer and every sampled state so far (inputs and normalized Bellman targets, one row per
 * state); each gradient step draws one minibatch from it. A row keeps only what depends on its stock level: the
 * day's inputs are read from its product's model and the loss weights (fixed per product) from one row per
 * product, so the random reads of a step touch half the memory (a 60-day, 100-product company's rows: 230 MB, not 456).
 * With a second thread (`shareBatches`), the memory is shared and that thread gathers the minibatches ahead.
 */
class ReplayTrainer {
  readonly f: number;
  readonly a: number;
  /** Outputs per row: the marginal stock value and one advantage per action. */
  readonly out: number;
  rows = 0;
  steps = 0;
  readonly memory: ReplayMemory;
  private readonly dayFeatures: readonly Float32Array[];
  private readonly modelIndex: Map<ProductModel, number>;
  private readonly slot: StepSlot;
  /** Each step's rows, drawn for a whole day (or chunk) of steps at once when gathering here. */
  private readonly picks: Int32Array;
  private pipe: { readonly pipe: BatchPipe; readonly offer: (job: BatchJob) => void } | null = null;
  private lossSum = 0;
  private lossCount = 0;

  constructor(
    readonly net: QNetwork,
    readonly optimizer: Adam,
    models: readonly ProductModel[],
    capacity: number,
    private readonly batchSize: number,
    private readonly rng: () => number,
    readonly maxSteps: number,
  ) {
    this.f = net.shape.inputs;
    this.a = net.shape.actions;
    this.out = 1 + this.a;
    this.modelIndex = new Map(models.map((m, i) => [m, i]));
    this.memory = createReplayMemory(this.f, this.a, models.length, capacity);
    this.dayFeatures = models.map((m) => m.dayFeatures);
    this.slot = createStepSlot(this.memory, net.shape, batchSize);
    this.picks = new Int32Array(maxSteps * batchSize);
  }

  /** From now on the minibatches are offered to another thread (`gatherJob` there) through `pipe`. */
  shareBatches(pipe: BatchPipe, offer: (job: BatchJob) => void): void {
    this.pipe = { pipe, offer };
  }

  /** The product's index among the trainer's models (the simulator's order). */
  indexOf(m: ProductModel): number {
    const p = this.modelIndex.get(m);
    if (p === undefined) throw new RangeError(`unknown product ${m.setup.productId}`);
    return p;
  }

  /** Stores one product-day's rows (`dayTargets`) for product `m` on `day`. */
  addRows(m: ProductModel, day: number, rows: ProductDayRows): void {
    const p = this.modelIndex.get(m) ?? -1;
    const sc = STOCK_FEATURE_COLUMNS.length;
    const from = this.rows;
    const { rowModel, rowDay, stockX, packed, productW } = this.memory;
    rowModel.fill(p, from, from + rows.count);
    rowDay.fill(day, from, from + rows.count);
    stockX.set(rows.stockX, from * sc);
    const { a, out } = this;
    const width = 2 * a + out;
    for (let j = 0; j < rows.count; j++) {
      const base = (from + j) * width;
      packed.set(rows.margins.subarray(j * a, (j + 1) * a), base);
      packed.set(rows.rates.subarray(j * a, (j + 1) * a), base + a);
      packed.set(rows.y.subarray(j * out, (j + 1) * out), base + 2 * a);
    }
    productW.set(rows.w, p * this.out);
    this.rows += rows.count;
  }

  /** Each step's rows: half of each batch from `newFrom` on (the day just computed), half over all. */
  private pick(picks: Int32Array, steps: number, newFrom: number): void {
    const b = this.batchSize;
    const fresh = this.rows - newFrom;
    for (let s = 0; s < steps; s++) {
      for (let r = 0; r < b; r++) {
        picks[s * b + r] =
          r < b / 2 && fresh > 0
            ? newFrom + Math.floor(this.rng() * fresh)
            : Math.floor(this.rng() * this.rows);
      }
    }
  }

  /**
   * `count` (at most `maxSteps`) gradient steps, `after` called after each; half of each batch is the rows from
   * `newFrom` on, half replays all.
   */
  run(count: number, newFrom: number, after?: (step: number) => void): void {
    const shared = this.pipe;
    if (shared !== null) shared.offer(shared.pipe.begin(count, (picks) => this.pick(picks, count, newFrom)));
    else this.pick(this.picks, count, newFrom);
    for (let s = 0; s < count; s++) {
      let slot = shared?.pipe.take(s) ?? null;
      if (slot === null) {
        slot = this.slot;
        const picks = shared?.pipe.buffers.picks ?? this.picks;
        gatherStep(this.memory, this.dayFeatures, this.net.shape, picks, s * this.batchSize, slot);
      }
      const loss = this.net.trainPrepared(this.optimizer, slot.batch.x, slot.prepared);
      shared?.pipe.done();
      this.lossSum += loss;
      this.lossCount++;
      this.steps++;
      after?.(s);
    }
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
    this.pipe?.pipe.close();
    this.net.dispose();
  }
}

/** A product still learning on some day, with the stock levels its simulated episodes visit each day. */
interface Learner {
  readonly model: ProductModel;
  readonly statesPerDay: number;
  /** stocks[day][j]. */
  readonly stocks: readonly (readonly number[])[];
}

/**
 * The second thread's share of each day's targets, moved after each day towards the split at which both threads
 * would have finished together, given how long each took per product (the second's time includes whatever it was
 * busy with when asked: the rule's safety margins, a batch). Which thread computes a product's rows changes nothing
 * in them; on bench:train's 100 products a fixed half left this thread waiting for a tenth of the backward pass
 * while the rule's margins ran there, and the other thread idle after.
 */
class TargetSplit {
  constructor(public share: number) {}

  observe(mineMs: number, mine: number, theirsMs: number, theirs: number): void {
    if (mine === 0 || theirs === 0 || !(mineMs > 0) || !(theirsMs > 0)) return;
    const perMine = mineMs / mine;
    const perTheirs = theirsMs / theirs;
    const balanced = perMine / (perMine + perTheirs);
    this.share = Math.min(0.9, Math.max(0.1, (this.share + balanced) / 2));
  }
}

/**
 * Learns one day of backward induction: Bellman targets of the day's sampled states under the network's value of
 * the next day, then gradient steps. With a second thread, its share (`split`) of the products' targets are computed
 * there meanwhile; the rows are stored in product order either way. Returns the mean value of the day's states
 * (currency, summed over products).
 */
async function learnDay(
  trainer: ReplayTrainer,
  learners: readonly Learner[],
  day: number,
  stepsPerDay: number,
  thread: TargetsThread | null,
  split: TargetSplit,
): Promise<number> {
  const active = learners.filter((l) => day < l.model.setup.horizon && l.statesPerDay > 0);
  // Until the second thread has started, this one computes every target (the rows are the same either way).
  const helper = thread?.ready ? thread : null;
  const today = (l: Learner) => ({ model: l.model, stocks: l.stocks[day] ?? [] });
  const share = split.share;
  const away = (i: number): boolean => helper !== null && Math.floor((i + 1) * share) > Math.floor(i * share);
  const awayCount = active.filter((_, i) => away(i)).length;
  const sentAt = epochMs();
  const theirs =
    helper?.dayTargets({
      day,
      weights: trainer.net.toArrays(),
      products: active
        .filter((_, i) => away(i))
        .map((l) => ({ index: trainer.indexOf(l.model), stocks: l.stocks[day] ?? [] })),
    }) ?? Promise.resolve({ rows: [], finishedAt: sentAt });
  // A rejection is awaited below; one arriving while this thread computes must not count as unhandled.
  theirs.catch(() => undefined);
  const mine = dayTargets(trainer.net, active.filter((_, i) => !away(i)).map(today), day);
  const mineAt = epochMs();
  const { rows: other, finishedAt } = await theirs;
  split.observe(mineAt - sentAt, active.length - awayCount, finishedAt - sentAt, awayCount);
  const newFrom = trainer.rows;
  let estimatedValue = 0;
  let m = 0;
  let o = 0;
  active.forEach(({ model }, i) => {
    const product = away(i) ? other[o++] : mine[m++];
    if (product === undefined) throw new Error(`no targets for product ${model.setup.productId}`);
    trainer.addRows(model, day, product);
    for (const value of product.values) estimatedValue += value / product.count;
  });
  trainer.resetLoss();
  if (trainer.rows > 0) trainer.run(stepsPerDay, newFrom);
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
  const average = new WeightAverage();
  for (let done = 0; done < cfg.finalSteps && trainer.rows > 0 && !clock.overBudget(); ) {
    throwIfAborted(signal);
    trainer.resetLoss();
    const n = Math.min(FINAL_CHUNK, cfg.finalSteps - done);
    trainer.optimizer.learningRate = finalLearningRate(cfg, done);
    trainer.run(n, trainer.rows, (s) => {
      if (done + s >= cfg.finalSteps / 2 && (done + s) % AVERAGE_EVERY === 0)
        average.add(trainer.net.toArrays());
    });
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
  const maxSteps = Math.max(cfg.stepsPerDay, Math.min(FINAL_CHUNK, cfg.finalSteps));
  return new ReplayTrainer(net, optimizer, models, capacity, cfg.batchSize, rng, maxSteps);
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
  const thread =
    trainingThreads(options, input.products.length) > 1
      ? startTargetsThread(input, input.config.hidden)
      : null;
  try {
    return await trainPolicyWith(input, options, thread);
  } finally {
    thread?.terminate();
  }
}

/**
 * `trainPolicy` of an input its caller has parsed (`TrainingInputSchema`: parsing 100 products' rates again costs
 * some 0.1 s of the training's critical path) with the caller's second thread (`startTargetsThread` with this input
 * and its config's hidden layers), or null for one thread; the caller terminates it (`trainArtifact` keeps it for
 * the safety check).
 */
export async function trainPolicyWith(
  input: TrainingInput,
  options: TrainOptions,
  thread: TargetsThread | null,
): Promise<RlPolicy> {
  validateTrainingInput(input);
  const backend = await initTfBackend();
  const cfg = input.config;
  const clock = new TrainingClock(options.now ?? (() => performance.now()), cfg.maxSeconds);
  const rng = seedrandom(`fqi:${cfg.seed}`);
  const simulator = buildSimulator(input);
  const { models } = simulator;
  const trainer = createTrainer(models, cfg, rng);
  if (thread !== null) {
    const pipe = new BatchPipe(trainer.memory, trainer.net.shape, cfg.batchSize, trainer.maxSteps);
    thread.shareBatches(pipe.buffers);
    trainer.shareBatches(pipe, (job) => thread.gatherBatches(job));
  }
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
    if (options.threads === 2) await thread?.started;
    const split = new TargetSplit(thread?.targetShare ?? 0);
    for (let day = maxHorizon - 1; day >= 0 && !clock.overBudget(); day--) {
      throwIfAborted(options.signal);
      estimatedValue = await learnDay(trainer, learners, day, cfg.stepsPerDay, thread, split);
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
        m.setup.distribution === "poisson"
          ? samplePoisson(rng, rate)
          : sampleDemand(rng, m.setup, rate, (r) => m.demandPmfAt(r));
      stock = Math.max(0, stock - sold);
    }
  }
  for (const levels of byDay) {
    for (let j = 0; j < even; j++)
      levels.push(Math.min(s0, Math.max(1, Math.round(1 + ((j + rng()) / even) * (s0 - 1)))));
  }
  return byDay;
}
