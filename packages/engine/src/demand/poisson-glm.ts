import { choleskySolve } from "./cholesky.js";
import { inverseDiagonal } from "./covariance.js";

/** Observations of one product: units, day of week (Monday = 0) and log(price / reference price). */
export interface GlmData {
  readonly units: Float64Array;
  readonly weekday: Uint8Array;
  readonly logPrice: Float64Array;
}

/**
 * Gaussian prior on the parameters [logIntercept, weekday Tue..Sun (Monday is the baseline), priceSlope]; a
 * precision of 0 leaves a parameter free. This is what pools a product toward its company.
 */
export interface GlmPrior {
  readonly mean: readonly number[];
  readonly precision: readonly number[];
}

export interface GlmFit {
  /** [logIntercept, gamma_1..gamma_6, slope]; slope = -elasticity. */
  readonly theta: number[];
  /** Posterior standard deviations (inverse penalised information), same order; NaN when singular. */
  readonly stdErrors: number[];
  readonly iterations: number;
  readonly converged: boolean;
}

export const PARAMS = 8;
const SLOPE = 7;

/**
 * MAP fit of log(rate) = a + gamma[weekday] + slope * logPrice under a Poisson likelihood by damped Newton
 * (IRLS). With `fixedSlope` the slope is not estimated (constant price, or the sign constraint is active) and is
 * reported with its prior standard deviation.
 */
export function fitPoissonGlm(data: GlmData, prior: GlmPrior, fixedSlope: number | null = null): GlmFit {
  const n = data.units.length;
  const free = fixedSlope === null ? PARAMS : SLOPE;
  const theta = new Float64Array(PARAMS);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += data.units[i] ?? Number.NaN;
  theta[0] = Math.log(Math.max(mean / Math.max(n, 1), 1e-3));
  for (let j = 1; j < SLOPE; j++) theta[j] = prior.mean[j] ?? 0;
  theta[SLOPE] = fixedSlope ?? prior.mean[SLOPE] ?? 0;

  const grad = new Float64Array(free);
  const hess = new Float64Array(free * free);
  let objective = penalisedLogLik(data, prior, theta, free);
  let iterations = 0;
  let converged = false;
  // Whether the last information matrix factored: only then is its inverse a covariance.
  let positiveDefinite = false;
  for (; iterations < 100 && !converged; iterations++) {
    grad.fill(0);
    hess.fill(0);
    for (let i = 0; i < n; i++) {
      const d = data.weekday[i] ?? Number.NaN;
      const x = data.logPrice[i] ?? Number.NaN;
      const mu = Math.exp(
        (theta[0] ?? Number.NaN) + (d > 0 ? (theta[d] ?? Number.NaN) : 0) + (theta[SLOPE] ?? Number.NaN) * x,
      );
      const r = (data.units[i] ?? Number.NaN) - mu;
      // Design row is sparse: intercept, one weekday dummy, log price.
      grad[0] = (grad[0] ?? Number.NaN) + r;
      hess[0] = (hess[0] ?? Number.NaN) + mu;
      if (d > 0) {
        grad[d] = (grad[d] ?? Number.NaN) + r;
        hess[d * free + d] = (hess[d * free + d] ?? Number.NaN) + mu;
        hess[d] = (hess[d] ?? Number.NaN) + mu;
        hess[d * free] = (hess[d * free] ?? Number.NaN) + mu;
      }
      if (free === PARAMS) {
        grad[SLOPE] = (grad[SLOPE] ?? Number.NaN) + r * x;
        hess[SLOPE * free + SLOPE] = (hess[SLOPE * free + SLOPE] ?? Number.NaN) + mu * x * x;
        hess[SLOPE] = (hess[SLOPE] ?? Number.NaN) + mu * x;
        hess[SLOPE * free] = (hess[SLOPE * free] ?? Number.NaN) + mu * x;
        if (d > 0) {
          hess[d * free + SLOPE] = (hess[d * free + SLOPE] ?? Number.NaN) + mu * x;
          hess[SLOPE * free + d] = (hess[SLOPE * free + d] ?? Number.NaN) + mu * x;
        }
      }
    }
    for (let j = 0; j < free; j++) {
      const prec = prior.precision[j] ?? 0;
      grad[j] = (grad[j] ?? Number.NaN) + -(prec * ((theta[j] ?? Number.NaN) - (prior.mean[j] ?? 0)));
      hess[j * free + j] = (hess[j * free + j] ?? Number.NaN) + prec + 1e-9;
    }
    const step = choleskySolve(hess, grad, free);
    positiveDefinite = step !== null;
    if (!step) break;
    let scale = 1;
    let accepted = false;
    const candidate = new Float64Array(theta);
    for (let halvings = 0; halvings < 30; halvings++) {
      for (let j = 0; j < free; j++)
        candidate[j] = (theta[j] ?? Number.NaN) + scale * (step[j] ?? Number.NaN);
      const value = penalisedLogLik(data, prior, candidate, free);
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
    if (j >= free) {
      const prec = prior.precision[j] ?? 0;
      return prec > 0 ? 1 / Math.sqrt(prec) : Number.NaN;
    }
    return variances ? Math.sqrt(variances[j] ?? Number.NaN) : Number.NaN;
  });
  return { theta: [...theta], stdErrors, iterations, converged };
}

function penalisedLogLik(data: GlmData, prior: GlmPrior, theta: Float64Array, free: number): number {
  let ll = 0;
  for (let i = 0; i < data.units.length; i++) {
    const d = data.weekday[i] ?? Number.NaN;
    const eta =
      (theta[0] ?? Number.NaN) +
      (d > 0 ? (theta[d] ?? Number.NaN) : 0) +
      (theta[SLOPE] ?? Number.NaN) * (data.logPrice[i] ?? Number.NaN);
    ll += (data.units[i] ?? Number.NaN) * eta - Math.exp(eta);
  }
  for (let j = 0; j < free; j++) {
    const dev = (theta[j] ?? Number.NaN) - (prior.mean[j] ?? 0);
    ll -= 0.5 * (prior.precision[j] ?? 0) * dev * dev;
  }
  return ll;
}
