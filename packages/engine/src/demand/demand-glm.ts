import { choleskySolve } from "./cholesky.js";
import { inverseDiagonal } from "./covariance.js";

/**
 * Observations of one product: units, day of week (Monday = 0), log(price / reference price), the day's known
 * promotion (share in [0, 1]) and a fixed log offset (the weekly level, 0 where none).
 */
export interface GlmData {
  readonly units: Float64Array;
  readonly weekday: Uint8Array;
  readonly logPrice: Float64Array;
  readonly promoted: Float64Array;
  readonly offset: Float64Array;
}

/**
 * Gaussian prior on the parameters [logIntercept, weekday Tue..Sun (Monday is the baseline), priceSlope,
 * promotion]; a precision of 0 leaves a parameter free. This is what pools a product toward its company.
 */
export interface GlmPrior {
  readonly mean: readonly number[];
  readonly precision: readonly number[];
}

export interface GlmFit {
  /** [logIntercept, gamma_1..gamma_6, slope, promotion]; slope = -elasticity, promotion = log lift. */
  readonly theta: number[];
  /** Posterior standard deviations (inverse penalised information), same order; NaN when singular. */
  readonly stdErrors: number[];
  readonly iterations: number;
  readonly converged: boolean;
}

export const PARAMS = 9;
export const SLOPE = 7;
export const PROMOTION = 8;

/** Parameters held at a value rather than estimated (reported with their prior standard deviation). */
export interface FixedParams {
  readonly slope?: number;
  readonly promotion?: number;
}

/** The nonzero entries of one observation's design row: intercept, its weekday dummy, log price, promotion. */
function designRow(data: GlmData, i: number, cols: Int8Array, vals: Float64Array): number {
  let k = 0;
  cols[k] = 0;
  vals[k++] = 1;
  const d = data.weekday[i] ?? 0;
  if (d > 0) {
    cols[k] = d;
    vals[k++] = 1;
  }
  cols[k] = SLOPE;
  vals[k++] = data.logPrice[i] ?? Number.NaN;
  const promoted = data.promoted[i] ?? 0;
  if (promoted !== 0) {
    cols[k] = PROMOTION;
    vals[k++] = promoted;
  }
  return k;
}

function linearPredictor(data: GlmData, theta: Float64Array, i: number): number {
  const d = data.weekday[i] ?? 0;
  return (
    (theta[0] ?? Number.NaN) +
    (d > 0 ? (theta[d] ?? Number.NaN) : 0) +
    (theta[SLOPE] ?? Number.NaN) * (data.logPrice[i] ?? Number.NaN) +
    (theta[PROMOTION] ?? Number.NaN) * (data.promoted[i] ?? 0) +
    (data.offset[i] ?? 0)
  );
}

/**
 * MAP fit of log(rate) = a + gamma[weekday] + slope * logPrice + promotion * promoted + offset under an NB2
 * likelihood with over-dispersion `alpha` (0: Poisson) by damped Fisher scoring (IRLS: each day weighs
 * mu / (1 + alpha mu), so a noisy product's busy days do not pin its parameters more than the noise allows).
 * `fixed` parameters are not estimated (constant price, the sign constraint, no promoted day) and are reported with
 * their prior standard deviation; `start` is where the search begins (default: the mean's intercept, the prior).
 */
export function fitDemandGlm(
  data: GlmData,
  prior: GlmPrior,
  alpha = 0,
  fixed: FixedParams = {},
  start?: readonly number[],
): GlmFit {
  const n = data.units.length;
  const isFree = new Array<boolean>(PARAMS).fill(true);
  const theta = new Float64Array(PARAMS);
  let mean = 0;
  let offsetMean = 0;
  for (let i = 0; i < n; i++) {
    mean += data.units[i] ?? Number.NaN;
    offsetMean += data.offset[i] ?? 0;
  }
  theta[0] = Math.log(Math.max(mean / Math.max(n, 1), 1e-3)) - offsetMean / Math.max(n, 1);
  for (let j = 1; j < PARAMS; j++) theta[j] = prior.mean[j] ?? 0;
  // A warm start (the same product's previous round) saves most of the Newton steps.
  if (start !== undefined) theta.set(start.slice(0, PARAMS));
  if (fixed.slope !== undefined) {
    theta[SLOPE] = fixed.slope;
    isFree[SLOPE] = false;
  }
  if (fixed.promotion !== undefined) {
    theta[PROMOTION] = fixed.promotion;
    isFree[PROMOTION] = false;
  }
  // Free parameters are numbered 0..free-1 in the system solved.
  const index = new Int8Array(PARAMS).fill(-1);
  let free = 0;
  for (let j = 0; j < PARAMS; j++) if (isFree[j]) index[j] = free++;

  const grad = new Float64Array(free);
  const hess = new Float64Array(free * free);
  const cols = new Int8Array(4);
  const vals = new Float64Array(4);
  let objective = penalisedLogLik(data, prior, theta, alpha, isFree);
  let iterations = 0;
  let converged = false;
  // Whether the last information matrix factored: only then is its inverse a covariance.
  let positiveDefinite = false;
  for (; iterations < 100 && !converged; iterations++) {
    grad.fill(0);
    hess.fill(0);
    for (let i = 0; i < n; i++) {
      const mu = Math.exp(linearPredictor(data, theta, i));
      const w = mu / (1 + alpha * mu);
      const r = ((data.units[i] ?? Number.NaN) - mu) / (1 + alpha * mu);
      const k = designRow(data, i, cols, vals);
      for (let a = 0; a < k; a++) {
        const ia = index[cols[a] ?? 0] ?? -1;
        if (ia < 0) continue;
        const va = vals[a] ?? Number.NaN;
        grad[ia] = (grad[ia] ?? Number.NaN) + r * va;
        for (let b = 0; b < k; b++) {
          const ib = index[cols[b] ?? 0] ?? -1;
          if (ib < 0) continue;
          hess[ia * free + ib] = (hess[ia * free + ib] ?? Number.NaN) + w * va * (vals[b] ?? Number.NaN);
        }
      }
    }
    for (let j = 0; j < PARAMS; j++) {
      const ij = index[j] ?? -1;
      if (ij < 0) continue;
      const prec = prior.precision[j] ?? 0;
      grad[ij] = (grad[ij] ?? Number.NaN) - prec * ((theta[j] ?? Number.NaN) - (prior.mean[j] ?? 0));
      hess[ij * free + ij] = (hess[ij * free + ij] ?? Number.NaN) + prec + 1e-9;
    }
    const step = choleskySolve(hess, grad, free);
    positiveDefinite = step !== null;
    if (!step) break;
    let scale = 1;
    let accepted = false;
    const candidate = new Float64Array(theta);
    for (let halvings = 0; halvings < 30; halvings++) {
      for (let j = 0; j < PARAMS; j++) {
        const ij = index[j] ?? -1;
        if (ij >= 0) candidate[j] = (theta[j] ?? Number.NaN) + scale * (step[ij] ?? Number.NaN);
      }
      const value = penalisedLogLik(data, prior, candidate, alpha, isFree);
      if (value >= objective - 1e-12) {
        objective = value;
        accepted = true;
        break;
      }
      scale /= 2;
    }
    if (!accepted) break;
    let largest = 0;
    for (let j = 0; j < free; j++) largest = Math.max(largest, Math.abs(scale * (step[j] ?? Number.NaN)));
    theta.set(candidate);
    converged = largest < 1e-8;
  }
  const variances = positiveDefinite ? inverseDiagonal(hess, free) : null;
  const stdErrors = Array.from({ length: PARAMS }, (_, j) => {
    const ij = index[j] ?? -1;
    if (ij < 0) {
      const prec = prior.precision[j] ?? 0;
      return prec > 0 ? 1 / Math.sqrt(prec) : Number.NaN;
    }
    return variances ? Math.sqrt(variances[ij] ?? Number.NaN) : Number.NaN;
  });
  return { theta: [...theta], stdErrors, iterations, converged };
}

/** The fitted mean of every observation (units per day), offset included. */
export function fittedMeans(data: GlmData, theta: readonly number[]): Float64Array {
  const t = Float64Array.from(theta);
  const out = new Float64Array(data.units.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.exp(linearPredictor(data, t, i));
  return out;
}

/**
 * log det of the Fisher information X' W X at means `mu` with NB2 weights mu / (1 + alpha mu), over the columns
 * that vary in the data (a column that is all zero, such as promotion without a promoted day, is left out): the
 * Cox-Reid adjustment of the over-dispersion's profile likelihood.
 */
export function logDetInformation(data: GlmData, mu: Float64Array, alpha: number): number {
  const cols = new Int8Array(4);
  const vals = new Float64Array(4);
  const info = new Float64Array(PARAMS * PARAMS);
  for (let i = 0; i < mu.length; i++) {
    const m = mu[i] ?? 0;
    const w = m / (1 + alpha * m);
    const k = designRow(data, i, cols, vals);
    for (let a = 0; a < k; a++)
      for (let b = 0; b < k; b++) {
        const at = (cols[a] ?? 0) * PARAMS + (cols[b] ?? 0);
        info[at] = (info[at] ?? 0) + w * (vals[a] ?? 0) * (vals[b] ?? 0);
      }
  }
  const used = Array.from({ length: PARAMS }, (_, j) => j).filter((j) => (info[j * PARAMS + j] ?? 0) > 1e-12);
  const m = used.length;
  // Cholesky in place: log det = 2 sum log diag(L).
  const l = new Float64Array(m * m);
  let logDet = 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j <= i; j++) {
      let s = info[(used[i] ?? 0) * PARAMS + (used[j] ?? 0)] ?? 0;
      for (let k = 0; k < j; k++) s -= (l[i * m + k] ?? 0) * (l[j * m + k] ?? 0);
      if (i === j) {
        const d = Math.sqrt(Math.max(s, 1e-12));
        l[i * m + i] = d;
        logDet += 2 * Math.log(d);
      } else {
        l[i * m + j] = s / (l[j * m + j] ?? 1);
      }
    }
  return logDet;
}

/** The NB2 log-likelihood of y at mean mu, up to terms free of mu (Poisson at alpha 0). */
function kernel(y: number, eta: number, alpha: number): number {
  if (alpha <= 0) return y * eta - Math.exp(eta);
  const mu = Math.exp(eta);
  return y * eta - (y + 1 / alpha) * Math.log1p(alpha * mu);
}

function penalisedLogLik(
  data: GlmData,
  prior: GlmPrior,
  theta: Float64Array,
  alpha: number,
  isFree: readonly boolean[],
): number {
  let ll = 0;
  for (let i = 0; i < data.units.length; i++)
    ll += kernel(data.units[i] ?? Number.NaN, linearPredictor(data, theta, i), alpha);
  for (let j = 0; j < PARAMS; j++) {
    if (!isFree[j]) continue;
    const dev = (theta[j] ?? Number.NaN) - (prior.mean[j] ?? 0);
    ll -= 0.5 * (prior.precision[j] ?? 0) * dev * dev;
  }
  return ll;
}
