import { packedMap } from "../base/packed-map.js";

/**
 * A product's demand level that moves week to week (season, holidays, trend): a local-level model (random walk)
 * on the log ratio of each week's units to what the rest of the model expects, filtered and smoothed by Kalman.
 */
export interface WeeklyLevel {
  /** Smoothed log level of each week, oldest first, relative to the last week's (so the last is 0). */
  readonly logLevels: number[];
  /** Variance of the last week's log level (the level the forecasts carry forward). */
  readonly lastVariance: number;
  /** Week-to-week variance of the log level; 0 when the level is flat. */
  readonly stepVariance: number;
  /**
   * Variance of a week's log level around the level, not carried to the next week (the stray allowance, estimated
   * whether the level walks or not): days of one week share it, so they are less evidence than independent days.
   */
  readonly strayVariance: number;
  /** 2 x the log-likelihood gain over a flat level (the test statistic). */
  readonly lrStatistic: number;
}

/**
 * Extra variance of a week's log ratio beyond the sales noise the NB2 alpha accounts for, estimated with the walk's
 * step: a week that strays for no lasting reason (a local event, a price the fitted curve misjudges every time it
 * returns) must not move the level, nor make a flat level look like a walk. Without it a product whose price
 * alternated weekly between levels the curve misfits read the misfit as a walk and carried the wrong week forward.
 */
const STRAY_GRID = [0, 0.0025, 0.01, 0.04, 0.16];
/** The test's critical value: chi-bar-squared 50:50 mixture of 0 and 1 degrees of freedom, 5 %. */
const LR_CRITICAL = 2.71;
/** Step variances tried (a weekly standard deviation of 1 % to 30 %). */
const STEP_GRID = [1e-4, 4e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.02, 0.04, 0.09];
/** Fewer weeks than this cannot tell a walk from noise: the level stays flat. */
const MIN_WEEKS = 8;
const DIFFUSE = 1e6;

/**
 * Each week's observation: the log ratio z of its units to the expected and the ratio's variance v, NaN for a week
 * without expected units. Two columns rather than an object or null per week: the grid search runs the filter over
 * them 50 times, and its reads of a mixed array were the filter's cost.
 */
interface WeekObs {
  readonly z: Float64Array;
  readonly v: Float64Array;
}

/**
 * The weekly level of daily units `y` around means `mu` (the rest of the model, no level), days numbered by
 * `week` (0 = oldest week, consecutive), under NB2 noise `alpha`. A walk is chosen over a flat level only when a
 * likelihood-ratio test says the data move (`LR_CRITICAL`); a flat level is all zeros.
 */
export function weeklyLevel(week: Int32Array, y: Float64Array, mu: Float64Array, alpha: number): WeeklyLevel {
  let weeks = 0;
  for (const w of week) weeks = Math.max(weeks, w + 1);
  if (weekScratch.length < 5 * weeks) weekScratch = new Float64Array(10 * weeks);
  // Views of the scratch, zeroed as a new array would be (z is filled below).
  const units = weekScratch.subarray(0, weeks).fill(0);
  const expected = weekScratch.subarray(weeks, 2 * weeks).fill(0);
  const squares = weekScratch.subarray(2 * weeks, 3 * weeks).fill(0);
  for (let i = 0; i < week.length; i++) {
    const w = week[i] ?? 0;
    const m = mu[i] ?? 0;
    units[w] = (units[w] ?? 0) + (y[i] ?? 0);
    expected[w] = (expected[w] ?? 0) + m;
    squares[w] = (squares[w] ?? 0) + m * m;
  }
  const obs: WeekObs = {
    z: weekScratch.subarray(3 * weeks, 4 * weeks).fill(Number.NaN),
    v: weekScratch.subarray(4 * weeks, 5 * weeks).fill(0),
  };
  let observed = 0;
  for (let w = 0; w < weeks; w++) {
    const e = expected[w] ?? 0;
    if (!(e > 0)) continue;
    const floor = Math.max(e, 0.5);
    obs.z[w] = Math.log(((units[w] ?? 0) + 0.5) / (e + 0.5));
    obs.v[w] = (floor + alpha * (squares[w] ?? 0)) / (floor * floor);
    observed++;
  }
  const flat: WeeklyLevel = {
    logLevels: new Array<number>(weeks).fill(0),
    lastVariance: 0,
    stepVariance: 0,
    strayVariance: 0,
    lrStatistic: 0,
  };
  if (observed < MIN_WEEKS) return flat;
  let flatBest = { stray: 0, logLik: Number.NEGATIVE_INFINITY };
  let best = { q: 0, stray: 0, logLik: Number.NEGATIVE_INFINITY };
  const logLiks = gridLogLiks(obs);
  for (let s = 0; s < STRAY_GRID.length; s++) {
    const stray = STRAY_GRID[s] ?? 0;
    const ll = logLiks[s * GRID_QS] ?? Number.NaN;
    if (ll > flatBest.logLik) flatBest = { stray, logLik: ll };
    for (let k = 1; k < GRID_QS; k++) {
      const q = GRID_Q[k] ?? 0;
      const ll = logLiks[s * GRID_QS + k] ?? Number.NaN;
      if (ll > best.logLik) best = { q, stray, logLik: ll };
    }
  }
  const lr = 2 * (best.logLik - flatBest.logLik);
  // Objects and arrays made the same way in every tier (`packedMap`): spreads and `at` here deoptimised the fit.
  if (lr < LR_CRITICAL)
    return {
      logLevels: flat.logLevels,
      lastVariance: 0,
      stepVariance: 0,
      strayVariance: flatBest.stray,
      lrStatistic: Math.max(0, lr),
    };
  const run = filter(obs, best.q, best.stray);
  const smoothed = smooth(run, best.q);
  const last = smoothed[smoothed.length - 1] ?? 0;
  return {
    logLevels: packedMap(smoothed, (l) => l - last),
    lastVariance: run.variances[run.variances.length - 1] ?? 0,
    stepVariance: best.q,
    strayVariance: best.stray,
    lrStatistic: lr,
  };
}

/**
 * `weeklyLevel`'s sums and observations by week, five columns of views into it, grown to the longest history met:
 * arrays of ~53 doubles each have their memory outside V8's heap, a backing store to allocate and free, five a
 * product. Nothing the function returns reads them.
 */
let weekScratch = new Float64Array(5 * 64);

interface FilterRun {
  /** Filtered mean and variance of each week's level, and the predicted ones before its observation. */
  readonly means: number[];
  readonly variances: number[];
  readonly predictedMeans: number[];
  readonly predictedVariances: number[];
  /** Gaussian log-likelihood of the observations after the first (the first only sets the diffuse start). */
  readonly logLik: number;
}

function filter(obs: WeekObs, q: number, stray: number): FilterRun {
  const run: Omit<FilterRun, "logLik"> = {
    means: [],
    variances: [],
    predictedMeans: [],
    predictedVariances: [],
  };
  const logLik = filterPass(obs, q, stray, run);
  return {
    means: run.means,
    variances: run.variances,
    predictedMeans: run.predictedMeans,
    predictedVariances: run.predictedVariances,
    logLik,
  };
}

/** The grid's step variances, the flat level's 0 first, and the filters of one pass (each stray's, in that order). */
const GRID_Q = Float64Array.from([0, ...STEP_GRID]);
const GRID_QS = GRID_Q.length;
const GRID = STRAY_GRID.length * GRID_QS;
/** `gridLogLiks`' state of each filter, and its result; refilled every call. */
const gridMean = new Float64Array(GRID);
const gridVariance = new Float64Array(GRID);
const gridProduct = new Float64Array(GRID);
const gridLogs = new Float64Array(GRID);
const gridSquares = new Float64Array(GRID);
const gridLogLik = new Float64Array(GRID);

/**
 * `filter(obs, q, stray).logLik` of every pair of the grid (filter `s * GRID_QS + k`: stray s, step `GRID_Q[k]`),
 * without keeping the runs: the search smooths only the best one. The 50 filters run side by side in one pass over
 * the weeks, each with `filterPass`' operations in its order (the same likelihoods, bit for bit): one filter's
 * weeks are a chain of divisions, each waiting on the last, where 50 independent chains keep the divider busy.
 */
function gridLogLiks(obs: WeekObs): Float64Array {
  const m = gridMean;
  const p = gridVariance;
  const product = gridProduct;
  const logs = gridLogs;
  const squares = gridSquares;
  m.fill(0);
  p.fill(DIFFUSE);
  product.fill(1);
  logs.fill(0);
  squares.fill(0);
  let terms = 0;
  let started = false;
  const { z, v } = obs;
  for (let w = 0; w < z.length; w++) {
    const zw = z[w] ?? Number.NaN;
    if (Number.isNaN(zw)) {
      if (w > 0) for (let f = 0; f < GRID; f++) p[f] = (p[f] ?? Number.NaN) + (GRID_Q[f % GRID_QS] ?? 0);
      continue;
    }
    const vw = v[w] ?? Number.NaN;
    if (started) terms++;
    for (let s = 0; s < STRAY_GRID.length; s++) {
      const stray = STRAY_GRID[s] ?? 0;
      for (let k = 0; k < GRID_QS; k++) {
        const f = s * GRID_QS + k;
        const pm = m[f] ?? Number.NaN;
        const prior = p[f] ?? Number.NaN;
        const pp = w === 0 ? prior : prior + (GRID_Q[k] ?? 0);
        const sw = pp + vw + stray;
        const innovation = zw - pm;
        if (started) {
          let prod = (product[f] ?? Number.NaN) * sw;
          if (prod > 1e150 || prod < 1e-150) {
            logs[f] = (logs[f] ?? 0) + Math.log(prod);
            prod = 1;
          }
          product[f] = prod;
          squares[f] = (squares[f] ?? 0) + (innovation * innovation) / sw;
        }
        const gain = pp / sw;
        m[f] = pm + gain * innovation;
        p[f] = (1 - gain) * pp;
      }
    }
    started = true;
  }
  const out = gridLogLik;
  for (let f = 0; f < GRID; f++)
    out[f] =
      -0.5 * (terms * LOG_2PI + (logs[f] ?? 0) + Math.log(product[f] ?? Number.NaN) + (squares[f] ?? 0));
  return out;
}

/** The Kalman filter's pass over the weeks: its log-likelihood, and each week's moments into `run` when given. */
function filterPass(obs: WeekObs, q: number, stray: number, run: Omit<FilterRun, "logLik"> | null): number {
  let m = 0;
  let p = DIFFUSE;
  // The Gaussian log-likelihood is -0.5 (weeks log(2 pi) + sum log s + sum innovation^2 / s); the sum of logs is
  // the log of the variances' product, taken when it nears the double's range rather than a log per week (the grid
  // runs 50 passes a product, and those logs were most of the level's CPU).
  let terms = 0;
  let product = 1;
  let logs = 0;
  let squares = 0;
  let started = false;
  const { z, v } = obs;
  for (let w = 0; w < z.length; w++) {
    const zw = z[w] ?? Number.NaN;
    const pm = m;
    const pp = w === 0 ? p : p + q;
    // NaN only for a week without expected units: z is the log of a positive ratio.
    if (Number.isNaN(zw)) {
      m = pm;
      p = pp;
    } else {
      const s = pp + (v[w] ?? Number.NaN) + stray;
      const innovation = zw - pm;
      if (started) {
        terms++;
        product *= s;
        if (product > 1e150 || product < 1e-150) {
          logs += Math.log(product);
          product = 1;
        }
        squares += (innovation * innovation) / s;
      }
      started = true;
      const gain = pp / s;
      m = pm + gain * innovation;
      p = (1 - gain) * pp;
    }
    if (run !== null) {
      run.predictedMeans.push(pm);
      run.predictedVariances.push(pp);
      run.means.push(m);
      run.variances.push(p);
    }
  }
  return -0.5 * (terms * LOG_2PI + logs + Math.log(product) + squares);
}

const LOG_2PI = Math.log(2 * Math.PI);

/** Rauch-Tung-Striebel smoothing of a filter run: each week's level given every week. */
function smooth(run: FilterRun, q: number): number[] {
  const n = run.means.length;
  const out = [...run.means];
  for (let w = n - 2; w >= 0; w--) {
    const p = run.variances[w] ?? 0;
    const next = run.predictedVariances[w + 1] ?? p + q;
    const gain = next > 0 ? p / next : 0;
    out[w] = (run.means[w] ?? 0) + gain * ((out[w + 1] ?? 0) - (run.predictedMeans[w + 1] ?? 0));
  }
  return out;
}
