import seedrandom from "seedrandom";
import { initTfBackend, tf } from "../backend/tf-backend.js";
import { type DemandPmf, demandPmf, expectedCapped } from "../demand/sales-distribution.js";
import { actionCount, buildActionSpec, referencePriceOf } from "./action-space.js";
import { FLUID_VALUE_FEATURE, ProductModel } from "./product-model.js";
import { QNetwork } from "./q-network.js";
import { RlPolicy } from "./rl-policy.js";
import {
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

interface Buffer {
  x: Float32Array;
  /** Head inputs: [rows * A] expected margins and units today, capped by stock. */
  margins: Float32Array;
  rates: Float32Array;
  y: Float32Array;
  w: Float32Array;
  rows: number;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new DOMException("training aborted", "AbortError");
  }
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
  const now = options.now ?? (() => performance.now());
  const started = now();
  const cfg = input.config;
  const rng = seedrandom(`fqi:${cfg.seed}`);

  const withRef = input.products.map((p) => ({
    setup: p.setup,
    referencePrice: referencePriceOf(p.setup, p.referencePrice),
    rates: Float32Array.from(p.rates),
  }));
  const spec = buildActionSpec(withRef);
  const models = withRef.map((p) => new ProductModel(spec, p.setup, p.rates, p.referencePrice));
  const a = actionCount(spec);
  const f = models[0]!.featureCount;
  const out = 1 + a;
  const net = QNetwork.init(
    {
      inputs: f,
      hidden: cfg.hidden,
      actions: a,
      marginOffset: ProductModel.marginOffset,
      fluidOffset: FLUID_VALUE_FEATURE,
    },
    cfg.seed,
  );
  const optimizer = tf.train.adam(cfg.learningRate);
  // An abort or error mid-training must still free the variables and Adam moments (not tidy-scoped).
  try {
    const statesOf = (m: ProductModel): number =>
      m.setup.stock === null ? 1 : m.setup.stock > 0 ? cfg.statesPerDay : 0;
    const capacity = models.reduce((sum, m) => sum + m.setup.horizon * statesOf(m), 0);
    const buffer: Buffer = {
      x: new Float32Array(capacity * f),
      margins: new Float32Array(capacity * a),
      rates: new Float32Array(capacity * a),
      y: new Float32Array(capacity * out),
      w: new Float32Array(capacity * out),
      rows: 0,
    };
    const paths = models.map((m) => simulateStockPaths(m, statesOf(m), rng));
    const maxHorizon = Math.max(...models.map((m) => m.setup.horizon));
    const totalSteps = maxHorizon * cfg.stepsPerDay + cfg.finalSteps;
    let steps = 0;
    let recentLoss = 0;
    let recentCount = 0;
    let estimatedValue = 0;
    const overBudget = (): boolean => cfg.maxSeconds !== null && (now() - started) / 1000 > cfg.maxSeconds;

    const batchX = new Float32Array(cfg.batchSize * f);
    const batchM = new Float32Array(cfg.batchSize * a);
    const batchR = new Float32Array(cfg.batchSize * a);
    const batchY = new Float32Array(cfg.batchSize * out);
    const batchW = new Float32Array(cfg.batchSize * out);
    const trainStep = (newFrom: number): void => {
      const b = cfg.batchSize;
      const fresh = buffer.rows - newFrom;
      for (let r = 0; r < b; r++) {
        // Half of each batch is the day just computed, half replays all days so far.
        const row =
          r < b / 2 && fresh > 0 ? newFrom + Math.floor(rng() * fresh) : Math.floor(rng() * buffer.rows);
        batchX.set(buffer.x.subarray(row * f, (row + 1) * f), r * f);
        batchM.set(buffer.margins.subarray(row * a, (row + 1) * a), r * a);
        batchR.set(buffer.rates.subarray(row * a, (row + 1) * a), r * a);
        batchY.set(buffer.y.subarray(row * out, (row + 1) * out), r * out);
        batchW.set(buffer.w.subarray(row * out, (row + 1) * out), r * out);
      }
      const loss = net.trainStep(
        optimizer,
        { rows: b, x: batchX, margins: batchM, rates: batchR },
        batchY,
        batchW,
      );
      recentLoss += loss;
      recentCount++;
      steps++;
    };

    for (let day = maxHorizon - 1; day >= 0; day--) {
      throwIfAborted(options.signal);
      const active = models
        .map((_, i) => i)
        .filter((i) => day < models[i]!.setup.horizon && statesOf(models[i]!) > 0);
      const nextValues = nextDayValues(net, models, active, day + 1);
      const newFrom = buffer.rows;
      estimatedValue = 0;
      for (const i of active) {
        const m = models[i]!;
        const stocks = paths[i]![day]!;
        const pmfs: DemandPmf[] = [];
        for (let k = 0; k < a; k++) pmfs.push(demandPmf(m.setup.distribution, m.rateOf(day, k)));
        stocks.forEach((stock) => {
          const row = buffer.rows++;
          m.writeFeatures(day, stock, buffer.x, row * f);
          m.writeHeadInputs(day, stock, buffer.margins, buffer.rates, row * a);
          const value = writeTargets(m, day, stock, pmfs, nextValues.get(i) ?? null, buffer, row, out);
          estimatedValue += value / stocks.length;
        });
      }
      const budgetSteps = overBudget() ? 1 : cfg.stepsPerDay;
      recentLoss = 0;
      recentCount = 0;
      for (let s = 0; s < budgetSteps && buffer.rows > 0; s++) trainStep(newFrom);
      options.onProgress?.({
        phase: "backward",
        step: steps,
        totalSteps,
        day,
        loss: recentCount > 0 ? recentLoss / recentCount : 0,
        estimatedValue,
      });
      // Let the event loop run (abort signals, progress delivery) when training in the caller's thread.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }

    const chunk = 100;
    let averaged: Float64Array[] | null = null;
    let averagedCount = 0;
    for (let done = 0; done < cfg.finalSteps && buffer.rows > 0 && !overBudget(); ) {
      throwIfAborted(options.signal);
      recentLoss = 0;
      recentCount = 0;
      const n = Math.min(chunk, cfg.finalSteps - done);
      // Cosine decay to a tenth of the rate: the last steps polish rather than move. tfjs keeps the rate in a
      // protected field that its update reads on every step; Adam is blind to gradient scale, so this is the way in.
      (optimizer as unknown as { learningRate: number }).learningRate =
        cfg.learningRate * (0.1 + 0.45 * (1 + Math.cos((Math.PI * done) / cfg.finalSteps)));
      for (let s = 0; s < n; s++) {
        trainStep(buffer.rows);
        // Stochastic weight averaging over the second half of the final phase: the mean of many nearby iterates
        // has far less SGD noise than the last one.
        if (done + s >= cfg.finalSteps / 2 && (done + s) % AVERAGE_EVERY === 0) {
          const current = net.toArrays();
          if (averaged === null) averaged = current.map((w) => new Float64Array(w.length));
          current.forEach((w, i) => {
            const acc = averaged![i]!;
            for (let j = 0; j < w.length; j++) acc[j]! += w[j]!;
          });
          averagedCount++;
        }
      }
      done += n;
      options.onProgress?.({
        phase: "final",
        step: steps,
        totalSteps,
        day: 0,
        loss: recentLoss / recentCount,
        estimatedValue,
      });
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    throwIfAborted(options.signal);

    const weights =
      averaged === null
        ? net.toArrays()
        : averaged.map((acc) => Float32Array.from(acc, (x) => x / averagedCount));
    const meanHorizon = models.reduce((s, m) => s + m.setup.horizon, 0) / models.length;
    return RlPolicy.create({
      companyId: input.companyId,
      actionSpec: spec,
      hidden: cfg.hidden,
      products: withRef,
      weights,
      demandModel: input.demandModel,
      training: {
        config: cfg,
        backend: backend.name,
        seconds: (now() - started) / 1000,
        episodes: Math.round(buffer.rows / meanHorizon),
        sampledStates: buffer.rows,
        gradientSteps: steps,
        finalLoss: recentCount > 0 ? recentLoss / recentCount : 0,
        estimatedValue,
      },
    });
  } finally {
    net.dispose();
    optimizer.dispose();
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
  const normal = (): number => {
    const u1 = Math.max(rng(), 1e-12);
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng());
  };
  const n = m.setup.prices.length;
  for (let e = 0; e < episodes; e++) {
    let stock = s0;
    // Each episode explores with its own price bias plus daily noise.
    const bias = EXPLORE_BIAS * normal();
    for (let t = 0; t < h; t++) {
      byDay[t]!.push(Math.max(1, stock));
      if (stock <= 0) continue;
      const target = m.fluidPrice(t, stock) * Math.exp(bias + EXPLORE_NOISE * normal());
      let idx = 0;
      for (let i = 1; i < n; i++) {
        if (Math.abs(m.setup.prices[i]! - target) < Math.abs(m.setup.prices[idx]! - target)) idx = i;
      }
      const rate = m.rates[t * n + idx]!;
      const sold =
        m.setup.distribution === "bernoulli" ? (rng() < Math.min(rate, 1) ? 1 : 0) : samplePoisson(rate, rng);
      stock = Math.max(0, stock - sold);
    }
  }
  for (let t = 0; t < h; t++) {
    for (let j = 0; j < even; j++)
      byDay[t]!.push(Math.min(s0, Math.max(1, Math.round(1 + ((j + rng()) / even) * (s0 - 1)))));
  }
  return byDay;
}

/** Poisson draw by inversion (small rates) or a rounded normal approximation (large ones). */
function samplePoisson(rate: number, rng: () => number): number {
  if (rate <= 0) return 0;
  if (rate > 60) {
    const u1 = Math.max(rng(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng());
    return Math.max(0, Math.round(rate + Math.sqrt(rate) * z));
  }
  let k = 0;
  let p = Math.exp(-rate);
  let cdf = p;
  const u = rng();
  while (u > cdf && k < 1000) {
    k++;
    p *= rate / k;
    cdf += p;
  }
  return k;
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
  active: readonly number[],
  day: number,
): Map<number, Float64Array[]> {
  const result = new Map<number, Float64Array[]>();
  const grids = new Map<number, number[]>();
  let rows = 0;
  for (const i of active) {
    const m = models[i]!;
    if (day >= m.setup.horizon) continue;
    const s0 = m.setup.stock;
    let grid: number[];
    if (s0 === null) grid = [Number.POSITIVE_INFINITY];
    else if (s0 <= VALUE_GRID) grid = Array.from({ length: s0 }, (_, s) => s + 1);
    else
      grid = [
        ...new Set(Array.from({ length: VALUE_GRID }, (_, g) => Math.round(((g + 1) * s0) / VALUE_GRID))),
      ];
    grids.set(i, grid);
    rows += grid.length;
  }
  if (rows === 0) return result;
  const f = net.shape.inputs;
  const a = net.shape.actions;
  const x = new Float32Array(rows * f);
  const margins = new Float32Array(rows * a);
  const rates = new Float32Array(rows * a);
  let r = 0;
  for (const [i, grid] of grids) {
    for (const s of grid) {
      models[i]!.writeFeatures(day, s, x, r * f);
      models[i]!.writeHeadInputs(day, s, margins, rates, r * a);
      r++;
    }
  }
  const y = net.predict({ rows, x, margins, rates });
  r = 0;
  for (const [i, grid] of grids) {
    const m = models[i]!;
    const prevs = m.allowedAfter === null ? 1 : a;
    const finite = m.setup.stock !== null;
    const levels = finite ? m.setup.stock! + 1 : 1;
    const tables = Array.from({ length: prevs }, () => new Float64Array(levels));
    const advScale = m.advantageScale(day);
    const ref = m.referencePrice;
    // Free value (best action) at each grid level, then the penalty of each previous action's restricted set.
    const free = new Float64Array(grid.length);
    const penalty = Array.from({ length: prevs }, () => new Float64Array(grid.length));
    let cumulative = 0;
    let prevLevel = 0;
    let prevMu = 0;
    grid.forEach((s, g) => {
      const base = (r + g) * (a + 1);
      const mu = y[base]! * ref;
      if (finite) {
        const width = s - prevLevel;
        cumulative += width === 1 || g === 0 ? width * mu : (width * (mu + prevMu)) / 2;
        prevLevel = s;
        prevMu = mu;
      }
      free[g] = cumulative;
      let bestAll = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < a; k++) {
        if (m.actions.valid[k] && y[base + 1 + k]! > bestAll) bestAll = y[base + 1 + k]!;
      }
      if (m.allowedAfter === null) return;
      for (let p = 0; p < prevs; p++) {
        let best = Number.NEGATIVE_INFINITY;
        for (let k = 0; k < a; k++) {
          if (m.allowedAfter[p * a + k] && y[base + 1 + k]! > best) best = y[base + 1 + k]!;
        }
        penalty[p]![g] = best === Number.NEGATIVE_INFINITY ? 0 : advScale * (bestAll - best);
      }
    });
    r += grid.length;
    for (let p = 0; p < prevs; p++) {
      const table = tables[p]!;
      const pen = penalty[p]!;
      if (!finite) {
        table[0] = -pen[0]!;
        continue;
      }
      // Level 0 stays worth 0 whatever the previous price: nothing is left to sell.
      let lo = 0;
      let loValue = 0;
      grid.forEach((hi, g) => {
        const hiValue = free[g]! - pen[g]!;
        for (let s = lo + 1; s <= hi; s++) table[s] = loValue + ((hiValue - loValue) * (s - lo)) / (hi - lo);
        lo = hi;
        loValue = hiValue;
      });
    }
    result.set(i, tables);
  }
  return result;
}

/** Q (currency) of every action in state (day, stock) into `q`; NaN for invalid actions. Returns the best. */
function actionValues(
  m: ProductModel,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: Float64Array[] | null,
  q: Float64Array,
): number {
  const a = m.actionCount;
  const finite = stock !== Number.POSITIVE_INFINITY;
  let best = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < a; k++) {
    if (!m.actions.valid[k]) {
      q[k] = Number.NaN;
      continue;
    }
    const price = m.priceOf(k);
    const margin = price === null ? 0 : price - m.setup.unitCost;
    const table = next === null ? null : (next[m.allowedAfter === null ? 0 : k] ?? null);
    const pmf = pmfs[k]!;
    let value = 0;
    if (!finite) {
      const mean = expectedCapped(pmf, stock);
      value = (price === null ? 0 : margin * mean) + (table === null ? 0 : table[0]!);
    } else if (price === null) {
      value = table === null ? 0 : table[stock]!;
    } else {
      let below = 0;
      for (let j = 0; j < pmf.probs.length; j++) {
        const d = pmf.first + j;
        if (d >= stock) break;
        const p = pmf.probs[j]!;
        value += p * (margin * d + (table === null ? 0 : table[stock - d]!));
        below += p;
      }
      value += Math.max(0, 1 - below) * margin * stock;
    }
    q[k] = value;
    if (value > best) best = value;
  }
  return best;
}

/**
 * Writes the normalized Bellman targets of state (day, stock) at buffer row `row` and returns the state's value
 * (currency, best valid action). Q(a) = E[(p_a - c) min(D, s) + V_{day+1}(s - min(D, s), a)] with D the day's
 * demand at price p_a. Targets: the marginal value V(s) - V(s - 1) over the reference price, and each action's
 * Q minus the mean over valid actions, over the day's advantage scale.
 */
function writeTargets(
  m: ProductModel,
  day: number,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: Float64Array[] | null,
  buffer: Buffer,
  row: number,
  out: number,
): number {
  const a = m.actionCount;
  const q = new Float64Array(a);
  const best = actionValues(m, stock, pmfs, next, q);
  const finite = stock !== Number.POSITIVE_INFINITY;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < a; k++) {
    if (m.actions.valid[k]) {
      sum += q[k]!;
      count++;
    }
  }
  const mean = count > 0 ? sum / count : 0;
  const aScale = m.advantageScale(day);
  const yRow = row * out;
  if (finite) {
    const below = stock > 1 ? actionValues(m, stock - 1, pmfs, next, new Float64Array(a)) : 0;
    buffer.y[yRow] = (best - below) / m.referencePrice;
    buffer.w[yRow] = 1;
  } else {
    buffer.y[yRow] = 0;
    buffer.w[yRow] = 0;
  }
  for (let k = 0; k < a; k++) {
    const valid = m.actions.valid[k] === 1;
    buffer.y[yRow + 1 + k] = valid ? (q[k]! - mean) / aScale : 0;
    buffer.w[yRow + 1 + k] = valid ? 1 / count : 0;
  }
  return best;
}
