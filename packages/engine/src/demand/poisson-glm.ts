import { choleskySolve, inverseDiagonal } from "./cholesky.js";

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
  for (let i = 0; i < n; i++) mean += data.units[i]!;
  theta[0] = Math.log(Math.max(mean / Math.max(n, 1), 1e-3));
  for (let j = 1; j < SLOPE; j++) theta[j] = prior.mean[j] ?? 0;
  theta[SLOPE] = fixedSlope ?? prior.mean[SLOPE] ?? 0;

  const grad = new Float64Array(free);
  const hess = new Float64Array(free * free);
  let objective = penalisedLogLik(data, prior, theta, free);
  let iterations = 0;
  let converged = false;
  for (; iterations < 100 && !converged; iterations++) {
    grad.fill(0);
    hess.fill(0);
    for (let i = 0; i < n; i++) {
      const d = data.weekday[i]!;
      const x = data.logPrice[i]!;
      const mu = Math.exp(theta[0]! + (d > 0 ? theta[d]! : 0) + theta[SLOPE]! * x);
      const r = data.units[i]! - mu;
      // Design row is sparse: intercept, one weekday dummy, log price.
      grad[0]! += r;
      hess[0]! += mu;
      if (d > 0) {
        grad[d]! += r;
        hess[d * free + d]! += mu;
        hess[d]! += mu;
        hess[d * free]! += mu;
      }
      if (free === PARAMS) {
        grad[SLOPE]! += r * x;
        hess[SLOPE * free + SLOPE]! += mu * x * x;
        hess[SLOPE]! += mu * x;
        hess[SLOPE * free]! += mu * x;
        if (d > 0) {
          hess[d * free + SLOPE]! += mu * x;
          hess[SLOPE * free + d]! += mu * x;
        }
      }
    }
    for (let j = 0; j < free; j++) {
      const prec = prior.precision[j] ?? 0;
      grad[j]! -= prec * (theta[j]! - (prior.mean[j] ?? 0));
      hess[j * free + j]! += prec + 1e-9;
    }
    const step = choleskySolve(hess, grad, free);
    if (!step) break;
    let scale = 1;
    let accepted = false;
    const candidate = new Float64Array(theta);
    for (let halvings = 0; halvings < 30; halvings++) {
      for (let j = 0; j < free; j++) candidate[j] = theta[j]! + scale * step[j]!;
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
    for (let j = 0; j < free; j++) largest = Math.max(largest, Math.abs(scale * step[j]!));
    theta.set(candidate);
    converged = largest < 1e-8;
  }
  const variances = inverseDiagonal(hess, free);
  const stdErrors = Array.from({ length: PARAMS }, (_, j) => {
    if (j >= free) {
      const prec = prior.precision[j] ?? 0;
      return prec > 0 ? 1 / Math.sqrt(prec) : Number.NaN;
    }
    return variances ? Math.sqrt(variances[j]!) : Number.NaN;
  });
  return { theta: [...theta], stdErrors, iterations, converged };
}

function penalisedLogLik(data: GlmData, prior: GlmPrior, theta: Float64Array, free: number): number {
  let ll = 0;
  for (let i = 0; i < data.units.length; i++) {
    const d = data.weekday[i]!;
    const eta = theta[0]! + (d > 0 ? theta[d]! : 0) + theta[SLOPE]! * data.logPrice[i]!;
    ll += data.units[i]! * eta - Math.exp(eta);
  }
  for (let j = 0; j < free; j++) {
    const dev = theta[j]! - (prior.mean[j] ?? 0);
    ll -= 0.5 * (prior.precision[j] ?? 0) * dev * dev;
  }
  return ll;
}
