import { choleskySolveInto, isPositiveDefinite } from "./cholesky.js";
import { inverseDiagonal } from "./covariance.js";

/**
 * Observations of one product: units, day of week (Monday = 0), log(price / reference price), the day's known
 * promotion (share in [0, 1]) and a fixed log offset (the weekly level, 0 where none). A product's days take a few
 * dozen prices: each day's log price is also held as an index into the distinct ones (`priceIndex`, `logPrices`,
 * each day's `logPrice` that entry bit for bit), and its offset as a factor (`offsetFactor`, exp(offset)), so a
 * day's mean is a product of factors, one exp per weekday and per distinct price rather than one per day.
 */
export interface GlmData {
  readonly units: Float64Array;
  readonly weekday: Uint8Array;
  readonly logPrice: Float64Array;
  readonly priceIndex: Int32Array;
  readonly logPrices: Float64Array;
  readonly promoted: Float64Array;
  readonly offset: Float64Array;
  readonly offsetFactor: Float64Array;
}

/**
 * A product's observations with log offset `offset`. Every `GlmData` is made here, so that all have one shape: the
 * fit's loops read them per day, and objects spread from one another took other shapes ("wrong map" deopts of
 * the linear predictor, `penalisedLogLik` and `fitDemandGlm` under `--trace-deopt`), leaving those loops polymorphic.
 * With `glmPrior` it took the 100-product fit from 1 to 0.7-0.9 of its CPU time, the first fits of a process too.
 */
export function glmData(
  units: Float64Array,
  weekday: Uint8Array,
  logPrice: Float64Array,
  priceIndex: Int32Array,
  logPrices: Float64Array,
  promoted: Float64Array,
  offset: Float64Array,
  offsetFactor: Float64Array = offsetFactorOf(offset),
): GlmData {
  return { units, weekday, logPrice, priceIndex, logPrices, promoted, offset, offsetFactor };
}

/** exp of each day's offset (1 where it is 0), as `GlmData.offsetFactor` holds it. */
function offsetFactorOf(offset: Float64Array): Float64Array {
  const offsetFactor = new Float64Array(offset.length);
  for (let i = 0; i < offset.length; i++) {
    const o = offset[i] ?? 0;
    offsetFactor[i] = o === 0 ? 1 : Math.exp(o);
  }
  return offsetFactor;
}

/**
 * `data` with its offset replaced; `offsetFactor`, where the caller has it, must be what `glmData` would take of
 * `offset` (each entry `o === 0 ? 1 : Math.exp(o)`, bit for bit).
 */
export function withOffset(data: GlmData, offset: Float64Array, offsetFactor?: Float64Array): GlmData {
  return glmData(
    data.units,
    data.weekday,
    data.logPrice,
    data.priceIndex,
    data.logPrices,
    data.promoted,
    offset,
    offsetFactor,
  );
}

/**
 * Gaussian prior on the parameters [logIntercept, weekday Tue..Sun (Monday is the baseline), priceSlope,
 * promotion]; a precision of 0 leaves a parameter free. This is what pools a product toward its company.
 */
export interface GlmPrior {
  readonly mean: Float64Array;
  readonly precision: Float64Array;
}

/**
 * A prior from its means and precisions, held as Float64Arrays: array literals of small integers and of doubles are
 * two kinds of array to the JIT, on which the fit's loops deoptimised (see `glmData`).
 */
export function glmPrior(mean: readonly number[], precision: readonly number[]): GlmPrior {
  return { mean: Float64Array.from(mean), precision: Float64Array.from(precision) };
}

export interface GlmFit {
  /** [logIntercept, gamma_1..gamma_6, slope, promotion]; slope = -elasticity, promotion = log lift. */
  readonly theta: number[];
  /** Posterior standard deviations (inverse penalised information), same order; NaN when singular. */
  readonly stdErrors: number[];
  readonly iterations: number;
  readonly converged: boolean;
  /** The fitted mean of every observation at `theta` (what `fittedMeans` gives for it). */
  readonly means: Float64Array;
}

export const PARAMS = 9;
export const SLOPE = 7;
export const PROMOTION = 8;

/** Parameters held at a value rather than estimated (reported with their prior standard deviation). */
export interface FixedParams {
  readonly slope?: number;
  readonly promotion?: number;
}

/**
 * Sums over the days of w times the products of two design columns (intercept, weekday dummy, log price x,
 * promotion p), each over the days in their order: the information matrix X' W X without its zeros. A row of X
 * has at most four nonzero entries, so the matrix is a handful of sums; each is added up as the matrix's entry
 * would be (w x the first column's value x the second's), whose two orders differ only for x p.
 */
export class WeightedSums {
  /** Sum of w over all days; per weekday (Monday's unused). */
  all = 0;
  readonly byWeekday = new Float64Array(7);
  /** w x, over all days and per weekday; (w x) x. */
  x = 0;
  readonly xByWeekday = new Float64Array(7);
  xx = 0;
  /** w p, over all days and per weekday; (w p) p, (w x) p and (w p) x. */
  p = 0;
  readonly pByWeekday = new Float64Array(7);
  pp = 0;
  xp = 0;
  px = 0;

  reset(): void {
    this.all = 0;
    this.byWeekday.fill(0);
    this.x = 0;
    this.xByWeekday.fill(0);
    this.xx = 0;
    this.p = 0;
    this.pByWeekday.fill(0);
    this.pp = 0;
    this.xp = 0;
    this.px = 0;
  }

  add(w: number, d: number, x: number, p: number): void {
    this.all += w;
    const wx = w * x;
    this.x += wx;
    this.xx += wx * x;
    if (d > 0) {
      this.byWeekday[d] = (this.byWeekday[d] ?? 0) + w;
      this.xByWeekday[d] = (this.xByWeekday[d] ?? 0) + wx;
    }
    if (p !== 0) {
      const wp = w * p;
      this.p += wp;
      this.pp += wp * p;
      this.xp += wx * p;
      this.px += wp * x;
      if (d > 0) this.pByWeekday[d] = (this.pByWeekday[d] ?? 0) + wp;
    }
  }

  /** Entry (a, b) of X' W X: a and b are parameter indices (0 intercept, 1..6 weekdays, SLOPE, PROMOTION). */
  entry(a: number, b: number): number {
    if (a > b) return this.lower(a, b);
    if (a === b) return this.diagonal(a);
    // Above the diagonal the product is taken in the other order; only x p differs by it.
    if (a === SLOPE && b === PROMOTION) return this.xp;
    return this.lower(b, a);
  }

  private diagonal(a: number): number {
    if (a === 0) return this.all;
    if (a === SLOPE) return this.xx;
    if (a === PROMOTION) return this.pp;
    return this.byWeekday[a] ?? 0;
  }

  /** a > b. */
  private lower(a: number, b: number): number {
    if (a === PROMOTION) {
      if (b === SLOPE) return this.px;
      return b === 0 ? this.p : (this.pByWeekday[b] ?? 0);
    }
    if (a === SLOPE) return b === 0 ? this.x : (this.xByWeekday[b] ?? 0);
    // A weekday with the intercept (its dummy is 1 where the intercept is) or with another weekday (never both).
    return b === 0 ? (this.byWeekday[a] ?? 0) : 0;
  }
}

/**
 * What a Newton step reads of the days at its means: the information's sums and the likelihood's gradient (per
 * parameter: the residual (y - mu) / (1 + alpha mu) summed against its design column; per weekday, Monday's unused).
 */
class StepSums {
  readonly sums = new WeightedSums();
  readonly gradWeekday = new Float64Array(7);
  gradAll = 0;
  gradX = 0;
  gradP = 0;
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
  const theta = fitTheta;
  let mean = 0;
  let offsetMean = 0;
  for (let i = 0; i < n; i++) {
    mean += data.units[i] ?? Number.NaN;
    offsetMean += data.offset[i] ?? 0;
  }
  theta[0] = Math.log(Math.max(mean / Math.max(n, 1), 1e-3)) - offsetMean / Math.max(n, 1);
  for (let j = 1; j < PARAMS; j++) theta[j] = prior.mean[j] ?? 0;
  // A warm start (the same product's previous round) saves most of the Newton steps.
  if (start !== undefined)
    for (let j = 0; j < Math.min(PARAMS, start.length); j++) theta[j] = start[j] ?? Number.NaN;
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

  const grad = fitGrad;
  const step = fitStep;
  const candidate = fitCandidate;
  // Kept with the fit: its standard errors are read from it on demand.
  const hess = new Float64Array(free * free);
  // The means at theta, kept from the objective's evaluation there (the next step's weights), and a candidate's:
  // the fit's own array and a scratch one, which trade places as steps are taken (the fit's means end in its own).
  const means = new Float64Array(n);
  if (fitTrial.length < n) fitTrial = new Float64Array(n);
  let mu = means;
  let trial = fitTrial;
  // The weighted sums and gradient at theta, and a candidate's, filled by the likelihood's pass over the days: they
  // trade places with the means.
  let current = fitCurrent;
  let next = fitNext;
  let objective = penalisedLogLikWithSums(data, prior, theta, alpha, isFree, mu, current);
  let iterations = 0;
  let converged = false;
  // Whether the last information matrix factored: only then is its inverse a covariance.
  let positiveDefinite = false;
  // The last full step's largest change (0 after a damped one).
  let previous = 0;
  // Whether the fit stopped on the predicted step: its last information matrix is then a step behind theta.
  let stoppedEarly = false;
  for (; iterations < 100 && !converged; iterations++) {
    const { sums, gradWeekday, gradAll, gradX, gradP } = current;
    for (let j = 0; j < PARAMS; j++) {
      const ij = index[j] ?? -1;
      if (ij < 0) continue;
      grad[ij] = j === 0 ? gradAll : j === SLOPE ? gradX : j === PROMOTION ? gradP : (gradWeekday[j] ?? 0);
      for (let k = 0; k < PARAMS; k++) {
        const ik = index[k] ?? -1;
        if (ik >= 0) hess[ij * free + ik] = sums.entry(j, k);
      }
    }
    for (let j = 0; j < PARAMS; j++) {
      const ij = index[j] ?? -1;
      if (ij < 0) continue;
      const prec = prior.precision[j] ?? 0;
      grad[ij] = (grad[ij] ?? Number.NaN) - prec * ((theta[j] ?? Number.NaN) - (prior.mean[j] ?? 0));
      hess[ij * free + ij] = (hess[ij * free + ij] ?? Number.NaN) + prec + 1e-9;
    }
    positiveDefinite = choleskySolveInto(hess, grad, free, step);
    if (!positiveDefinite) break;
    let full = 0;
    for (let j = 0; j < free; j++) full = Math.max(full, Math.abs(step[j] ?? Number.NaN));
    // A step below the tolerance is not taken: theta is where it converged, its means and information already read.
    if (full < 1e-8) {
      converged = true;
      break;
    }
    let scale = 1;
    let accepted = false;
    candidate.set(theta);
    for (let halvings = 0; halvings < 30; halvings++) {
      for (let j = 0; j < PARAMS; j++) {
        const ij = index[j] ?? -1;
        if (ij >= 0) candidate[j] = (theta[j] ?? Number.NaN) + scale * (step[ij] ?? Number.NaN);
      }
      const value = penalisedLogLikWithSums(data, prior, candidate, alpha, isFree, trial, next);
      // A full step under 1e-6 is inside the optimum's quadratic basin, where it gains ~1e-10 or less: a sum over
      // hundreds of days rounds by more than that, and halving it on that rounding took up to 20 passes to move theta
      // by nothing.
      if (value >= objective - 1e-12 || (halvings === 0 && full < 1e-6 && Number.isFinite(value))) {
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
    [mu, trial] = [trial, mu];
    [current, next] = [next, current];
    converged = largest < 1e-8;
    // Two full Newton steps in a row converge quadratically (each about C times the last squared, C read off the
    // two): stop once the step that would follow is predicted below 1e-12, rather than taking it to see it is
    // below 1e-8. It saves the last pass of most warm-started fits and leaves an error far below the tolerance's.
    if (!converged && scale === 1 && previous > 0 && largest < 1e-4) {
      const predicted = (largest * largest * largest) / (previous * previous);
      if (predicted < 1e-12) {
        converged = true;
        stoppedEarly = true;
      }
    }
    previous = scale === 1 ? largest : 0;
  }
  if (mu !== means) {
    for (let i = 0; i < n; i++) means[i] = mu[i] ?? Number.NaN;
    mu = means;
  }
  // The covariance only when asked: a fit that is only a start or a round's means (half of a plan's) never reads it.
  let stdErrors: number[] | undefined;
  return {
    theta: [...theta],
    get stdErrors() {
      if (stdErrors === undefined) {
        // After an early stop the covariance is read at theta itself (as a fit that took the last step reads it
        // within 1e-8 of it), not at the point up to 1e-4 before.
        const information = stoppedEarly ? informationAt(data, mu, alpha, prior, index, free) : hess;
        const factors = stoppedEarly ? isPositiveDefinite(information, free) : positiveDefinite;
        stdErrors = standardErrors(factors ? information : null, free, index, prior);
      }
      return stdErrors;
    },
    iterations,
    converged,
    means,
  };
}

/**
 * `fitDemandGlm`'s scratch, written before read in every call (`theta` in full, `grad` and `step` for the free
 * parameters, `candidate` from theta each step, the sums reset each step): the fit runs ~300 times a plan, and its
 * small typed arrays were a share of the plan's allocations.
 */
const fitTheta = new Float64Array(PARAMS);
const fitGrad = new Float64Array(PARAMS);
const fitStep = new Float64Array(PARAMS);
const fitCandidate = new Float64Array(PARAMS);
const fitCurrent = new StepSums();
const fitNext = new StepSums();
/** `fitDemandGlm`'s candidate means, grown to the longest history met (its loops run over the data's days). */
let fitTrial = new Float64Array(400);

/** The penalised information X'WX + prior precision of the free parameters at means `mu`, as the fit's loop builds it. */
function informationAt(
  data: GlmData,
  mu: Float64Array,
  alpha: number,
  prior: GlmPrior,
  index: Int8Array,
  free: number,
): Float64Array {
  const sums = new WeightedSums();
  for (let i = 0; i < mu.length; i++) {
    const m = mu[i] ?? Number.NaN;
    sums.add(
      m / (1 + alpha * m),
      data.weekday[i] ?? 0,
      data.logPrice[i] ?? Number.NaN,
      data.promoted[i] ?? 0,
    );
  }
  const information = new Float64Array(free * free);
  for (let j = 0; j < PARAMS; j++) {
    const ij = index[j] ?? -1;
    if (ij < 0) continue;
    for (let k = 0; k < PARAMS; k++) {
      const ik = index[k] ?? -1;
      if (ik >= 0) information[ij * free + ik] = sums.entry(j, k);
    }
    information[ij * free + ij] =
      (information[ij * free + ij] ?? Number.NaN) + (prior.precision[j] ?? 0) + 1e-9;
  }
  return information;
}

/** Posterior standard deviations from the penalised information of the free parameters (null: singular). */
function standardErrors(
  information: Float64Array | null,
  free: number,
  index: Int8Array,
  prior: GlmPrior,
): number[] {
  const variances = information === null ? null : inverseDiagonal(information, free);
  return Array.from({ length: PARAMS }, (_, j) => {
    const ij = index[j] ?? -1;
    if (ij < 0) {
      const prec = prior.precision[j] ?? 0;
      return prec > 0 ? 1 / Math.sqrt(prec) : Number.NaN;
    }
    return variances ? Math.sqrt(variances[ij] ?? Number.NaN) : Number.NaN;
  });
}

/** The fitted mean of every observation (units per day), offset included. */
export function fittedMeans(data: GlmData, theta: readonly number[]): Float64Array {
  const out = new Float64Array(data.units.length);
  const at = meansTheta;
  for (let j = 0; j < PARAMS; j++) at[j] = theta[j] ?? Number.NaN;
  penalisedLogLik(data, noPrior, at, 0, noneFree, out);
  return out;
}

/** The prior and free parameters of `fittedMeans`' pass (its likelihood unread), arrays of the fit's kinds. */
const noPrior = glmPrior(new Array<number>(PARAMS).fill(0), new Array<number>(PARAMS).fill(0));
const noneFree = new Array<boolean>(PARAMS).fill(false);
const meansTheta = new Float64Array(PARAMS);

/**
 * exp of each weekday's intercept (`weekdayInterceptsOf`) into `weekdayScale` and of the slope times each distinct
 * log price into `priceScale` (grown to the product's prices): a day's mean is the product of its entries, its
 * offset's factor and its promotion's, which differs from exp of the day's linear predictor by a few ulps.
 */
function fillScales(data: GlmData, intercepts: Float64Array, slope: number): Float64Array {
  for (let d = 0; d < 7; d++) weekdayScale[d] = Math.exp(intercepts[d] ?? Number.NaN);
  const logPrices = data.logPrices;
  if (priceScale.length < logPrices.length) priceScale = new Float64Array(2 * logPrices.length);
  const scale = priceScale;
  for (let k = 0; k < logPrices.length; k++) scale[k] = Math.exp(slope * (logPrices[k] ?? Number.NaN));
  return scale;
}

/** `fillScales`' scratch, refilled every call. */
const weekdayScale = new Float64Array(7);
let priceScale = new Float64Array(64);

/**
 * log(rate) = a + gamma[weekday] + slope * logPrice + promotion * promoted + offset is summed in that order; its
 * first two terms are the same for every day of a weekday, so they are added once per weekday (Monday's gamma 0)
 * into `weekdayIntercepts`, which this returns: the sums are then the ones a per-day predictor made, bit for bit.
 */
function weekdayInterceptsOf(theta: ArrayLike<number>): Float64Array {
  const intercepts = weekdayIntercepts;
  const a = theta[0] ?? Number.NaN;
  intercepts[0] = a + 0;
  for (let d = 1; d < 7; d++) intercepts[d] = a + (theta[d] ?? Number.NaN);
  return intercepts;
}

/**
 * log det of the Fisher information X' W X whose sums are `sums` (the caller's pass over the days at its means, NB2
 * weights mu / (1 + alpha mu)), over the columns that vary in the data (a column that is all zero, such as promotion
 * without a promoted day, is left out): the Cox-Reid adjustment of the over-dispersion's profile likelihood.
 */
export function logDetOfSums(sums: WeightedSums): number {
  const used = logDetColumns;
  let m = 0;
  for (let j = 0; j < PARAMS; j++) if (sums.entry(j, j) > 1e-12) used[m++] = j;
  // Cholesky in place: log det = 2 sum log diag(L).
  const l = logDetFactor;
  let logDet = 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j <= i; j++) {
      let s = sums.entry(used[i] ?? 0, used[j] ?? 0);
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

/** `logDetOfSums`' scratch: the columns used and the factor, every entry read written first in each call. */
const logDetColumns = new Int8Array(PARAMS);
const logDetFactor = new Float64Array(PARAMS * PARAMS);

/**
 * The penalised log-likelihood at `theta` (NB2 kernel: the log-likelihood up to terms free of the means; Poisson at
 * alpha 0), writing each observation's mean into `mu` (the next Newton step's weights when theta is accepted).
 */
function penalisedLogLik(
  data: GlmData,
  prior: GlmPrior,
  theta: Float64Array,
  alpha: number,
  isFree: readonly boolean[],
  mu: Float64Array,
): number {
  // The loop-invariant reads hoisted (this pass is the fit's hottest).
  const intercepts = weekdayInterceptsOf(theta);
  const slope = theta[SLOPE] ?? Number.NaN;
  const promotion = theta[PROMOTION] ?? Number.NaN;
  const { units, weekday, logPrice, priceIndex, promoted, offset, offsetFactor } = data;
  const prices = fillScales(data, intercepts, slope);
  const weekdays = weekdayScale;
  const lift = Math.exp(promotion);
  const n = units.length;
  let ll = 0;
  const poisson = alpha <= 0;
  const inverse = 1 / alpha;
  for (let i = 0; i < n; i++) {
    const y = units[i] ?? Number.NaN;
    const d = weekday[i] ?? 0;
    const p = promoted[i] ?? 0;
    const eta =
      (intercepts[d] ?? Number.NaN) + slope * (logPrice[i] ?? Number.NaN) + promotion * p + (offset[i] ?? 0);
    let m = (weekdays[d] ?? Number.NaN) * (prices[priceIndex[i] ?? 0] ?? Number.NaN) * (offsetFactor[i] ?? 1);
    if (p !== 0) m *= p === 1 ? lift : Math.exp(promotion * p);
    mu[i] = m;
    ll += poisson ? y * eta - m : y * eta - (y + inverse) * Math.log1p(alpha * m);
  }
  for (let j = 0; j < PARAMS; j++) {
    if (!isFree[j]) continue;
    const dev = (theta[j] ?? Number.NaN) - (prior.mean[j] ?? 0);
    ll -= 0.5 * (prior.precision[j] ?? 0) * dev * dev;
  }
  return ll;
}

/**
 * `penalisedLogLik` that also fills `at` with the Newton step's sums and gradient at the means it writes: a step
 * taken then needs no pass of its own over the days (a fit's passes over the days went from 1 + 2 per step to 1 + 1).
 * A loop of its own, not a flag of `penalisedLogLik`'s: `fittedMeans` needs none of it. Each sum is added in the days'
 * order, as the step's own pass added it: the same sums, bit for bit.
 */
function penalisedLogLikWithSums(
  data: GlmData,
  prior: GlmPrior,
  theta: Float64Array,
  alpha: number,
  isFree: readonly boolean[],
  mu: Float64Array,
  at: StepSums,
): number {
  const intercepts = weekdayInterceptsOf(theta);
  const slope = theta[SLOPE] ?? Number.NaN;
  const promotion = theta[PROMOTION] ?? Number.NaN;
  const { units, weekday, logPrice, priceIndex, promoted, offset, offsetFactor } = data;
  const prices = fillScales(data, intercepts, slope);
  const weekdays = weekdayScale;
  const lift = Math.exp(promotion);
  const n = units.length;
  const sums = at.sums;
  const gradWeekday = at.gradWeekday;
  sums.reset();
  gradWeekday.fill(0);
  let gradAll = 0;
  let gradX = 0;
  let gradP = 0;
  let ll = 0;
  const poisson = alpha <= 0;
  const inverse = 1 / alpha;
  for (let i = 0; i < n; i++) {
    const y = units[i] ?? Number.NaN;
    const d = weekday[i] ?? 0;
    const p = promoted[i] ?? 0;
    const x = logPrice[i] ?? Number.NaN;
    const eta = (intercepts[d] ?? Number.NaN) + slope * x + promotion * p + (offset[i] ?? 0);
    let m = (weekdays[d] ?? Number.NaN) * (prices[priceIndex[i] ?? 0] ?? Number.NaN) * (offsetFactor[i] ?? 1);
    if (p !== 0) m *= p === 1 ? lift : Math.exp(promotion * p);
    mu[i] = m;
    ll += poisson ? y * eta - m : y * eta - (y + inverse) * Math.log1p(alpha * m);
    const spread = 1 + alpha * m;
    const w = m / spread;
    const r = (y - m) / spread;
    gradAll += r;
    if (d > 0) gradWeekday[d] = (gradWeekday[d] ?? 0) + r;
    gradX += r * x;
    if (p !== 0) gradP += r * p;
    sums.add(w, d, x, p);
  }
  at.gradAll = gradAll;
  at.gradX = gradX;
  at.gradP = gradP;
  for (let j = 0; j < PARAMS; j++) {
    if (!isFree[j]) continue;
    const dev = (theta[j] ?? Number.NaN) - (prior.mean[j] ?? 0);
    ll -= 0.5 * (prior.precision[j] ?? 0) * dev * dev;
  }
  return ll;
}

/** `weekdayInterceptsOf`'s scratch: theta's intercept plus each weekday's effect (Monday's 0), refilled every call. */
const weekdayIntercepts = new Float64Array(7);
