import { type GlmData, logDetOfSums, WeightedSums } from "./demand-glm.js";

/** Search bounds of the NB2 alpha: below the lower one the noise is Poisson for any daily volume we meet. */
const MIN_ALPHA = 1e-4;
const MAX_ALPHA = 10;

/** Lanczos coefficients (g = 7, 9 terms), made once: a literal in `logGamma` was an array per call. */
const LANCZOS = Float64Array.of(
  0.99999999999980993,
  676.5203681218851,
  -1259.1392167224028,
  771.32342877765313,
  -176.61502916214059,
  12.507343278686905,
  -0.13857109526572012,
  9.9843695780195716e-6,
  1.5056327351493116e-7,
);

/** log Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 digits). */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const c = LANCZOS;
  const z = x - 1;
  let a = c[0] ?? 1;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] ?? 0) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/**
 * What the likelihood of every alpha reads of one product's days at fixed means: the days' units as indices into
 * their distinct values (daily units repeat a few small counts, so log Gamma(y + r) is computed once per distinct
 * count and weighed by how many days have it), and the sums that do not depend on alpha. The likelihood is
 * evaluated at a dozen alphas, each a pass over the days with one log1p: NB2's log-likelihood is written as
 * sum_k c_k (lgamma(v_k + r) - lgamma(r)) + sum(y) log(alpha) + sum(y log mu) - sum((r + y) log1p(alpha mu)), where
 * the form per day (log(r / (r + mu)) and log(mu / (r + mu))) took two logs per selling day.
 */
interface Counts {
  readonly values: number[];
  /** Days with each distinct value. */
  readonly days: Float64Array;
  readonly sumUnits: number;
  /** sum(y log mu) and sum(mu) over the days. */
  readonly unitsLogMu: number;
  readonly sumMu: number;
}

/** Daily units below this that are whole numbers find their distinct value's index in a table, not a Map. */
const TABLED_UNITS = 256;
/** `countsOf`'s table: 1 + the index of each whole count seen (0: not yet), cleared after each product. */
const tabled = new Int32Array(TABLED_UNITS);

function countsOf(units: Float64Array, mu: Float64Array): Counts {
  const seen = new Map<number, number>();
  const values: number[] = [];
  const dayCounts: number[] = [];
  let sumUnits = 0;
  let unitsLogMu = 0;
  let sumMu = 0;
  for (let i = 0; i < units.length; i++) {
    const y = units[i] ?? 0;
    const m = mu[i] ?? 0;
    const small = Number.isInteger(y) && y >= 0 && y < TABLED_UNITS;
    let k = small ? (tabled[y] ?? 0) - 1 : (seen.get(y) ?? -1);
    if (k < 0) {
      k = values.length;
      if (small) tabled[y] = k + 1;
      else seen.set(y, k);
      values.push(y);
      dayCounts.push(0);
    }
    dayCounts[k] = (dayCounts[k] ?? 0) + 1;
    sumUnits += y;
    sumMu += m;
    // A day without sales has no log term (0 times a finite log): many days of a slow product.
    if (y !== 0) unitsLogMu += y * Math.log(Math.max(m, 1e-300));
  }
  for (const y of values) if (Number.isInteger(y) && y >= 0 && y < TABLED_UNITS) tabled[y] = 0;
  return { values, days: Float64Array.from(dayCounts), sumUnits, unitsLogMu, sumMu };
}

/** `adjusted`'s sums, refilled by every evaluation. */
const sums = new WeightedSums();

/**
 * The Cox-Reid adjusted profile log-likelihood of alpha given the means (the adjustment offsets the fitted means'
 * own fit): the NB2 log-likelihood of the units (terms free of alpha and the means dropped; Poisson at alpha 0)
 * minus half the log det of the information, both from one pass over the days.
 */
function adjusted(data: GlmData, counts: Counts, mu: Float64Array, alpha: number): number {
  const { units, weekday, logPrice, promoted } = data;
  sums.reset();
  if (alpha <= 0) {
    for (let i = 0; i < mu.length; i++)
      sums.add(mu[i] ?? 0, weekday[i] ?? 0, logPrice[i] ?? 0, promoted[i] ?? 0);
    return counts.unitsLogMu - counts.sumMu - 0.5 * logDetOfSums(sums);
  }
  const r = 1 / alpha;
  let shrink = 0;
  for (let i = 0; i < mu.length; i++) {
    const m = mu[i] ?? 0;
    const t = alpha * m;
    shrink += (r + (units[i] ?? 0)) * Math.log1p(t);
    sums.add(m / (1 + t), weekday[i] ?? 0, logPrice[i] ?? 0, promoted[i] ?? 0);
  }
  const lgR = logGamma(r);
  const { values, days } = counts;
  let gammas = 0;
  for (let k = 0; k < values.length; k++)
    gammas += (days[k] ?? 0) * (logGamma((values[k] ?? Number.NaN) + r) - lgR);
  const ll = gammas + counts.sumUnits * Math.log(alpha) + counts.unitsLogMu - shrink;
  return ll - 0.5 * logDetOfSums(sums);
}

/**
 * The method-of-moments alpha of units around means `mu`: sum((y - mu)^2 - y) / sum(mu^2), at least 0. Cheap; the
 * starting point of the likelihood's search and the alpha of the fit's intermediate rounds.
 */
export function momentOverdispersion(units: Float64Array, mu: Float64Array): number {
  let excess = 0;
  let squares = 0;
  for (let i = 0; i < mu.length; i++) {
    const y = units[i] ?? 0;
    const m = mu[i] ?? 0;
    excess += (y - m) ** 2 - y;
    squares += m * m;
  }
  return squares > 0 ? Math.min(MAX_ALPHA, Math.max(0, excess / squares)) : 0;
}

/** Half-width in log alpha to which the search locates the maximum (alpha to about 2 %, far inside its error). */
const LOG_ALPHA_TOLERANCE = 0.01;

/** An estimated over-dispersion and its standard error (`overdispersionSe`). */
export interface Overdispersion {
  readonly alpha: number;
  readonly se: number;
}

/**
 * The NB2 over-dispersion alpha >= 0 (variance = mu + alpha mu^2) of a product's daily units around fitted means
 * `mu`, by Cox-Reid adjusted maximum likelihood (as edgeR and DESeq2 estimate it: plain ML given fitted means
 * under-states alpha by about the share of the data the mean parameters absorb). Brent's search on log alpha within
 * a factor 5 of the moment estimate, from it (parabolic steps where the likelihood is smooth, golden sections where
 * not: 6 to 8 evaluations of the likelihood, each a pass over the days, where a golden-section search to the same
 * width took 12); 0 (Poisson) where no alpha above `MIN_ALPHA` beats it, without a search where the lower bound's
does not. With its standard error, which reads the
 * same counts and, where log(alpha) is the search's point itself, the likelihood the search found there.
 */
export function estimateOverdispersion(data: GlmData, mu: Float64Array): Overdispersion {
  const start = momentOverdispersion(data.units, mu);
  const lo = Math.log(Math.max(MIN_ALPHA, start / 5));
  const hi = Math.log(Math.min(MAX_ALPHA, Math.max(start * 5, 20 * MIN_ALPHA)));
  const counts = countsOf(data.units, mu);
  const poisson = adjusted(data, counts, mu, 0);
  const f = (x: number) => adjusted(data, counts, mu, Math.exp(x));
  const x0 = Math.min(hi, Math.max(lo, Math.log(Math.max(start, MIN_ALPHA))));
  const atStart = f(x0);
  // A search from the lower bound (a moment estimate of at most MIN_ALPHA, half the products of a market) whose first
  // alpha does not beat Poisson ends at Poisson: the likelihood falls from alpha 0 on, if it has one maximum (the
  // search's own premise), and the search's best could not beat alpha 0 either. Its 6 to 8 passes are not taken.
  if (x0 === lo && !(atStart > poisson)) return { alpha: 0, se: Number.NaN };
  const best = brentMaximum(f, lo, hi, x0, atStart, LOG_ALPHA_TOLERANCE);
  if (!(best.value > poisson)) return { alpha: 0, se: Number.NaN };
  const alpha = Math.exp(best.x);
  // log(exp(x)) is x but for rounding: only then is the search's value the one `overdispersionSe` would compute.
  const atAlpha = Math.log(alpha) === best.x ? best.value : undefined;
  return { alpha, se: overdispersionSe(data, mu, alpha, counts, atAlpha) };
}

/**
 * Brent's method (parabolic interpolation safeguarded by golden sections; Numerical Recipes' `brent`) for the
 * maximum of f on [a, b], from `x0` (where f is `fx0`), to within about `tol` in x.
 */
function brentMaximum(
  f: (x: number) => number,
  a0: number,
  b0: number,
  x0: number,
  fx0: number,
  tol: number,
): { x: number; value: number } {
  const golden = (3 - Math.sqrt(5)) / 2;
  let a = a0;
  let b = b0;
  // The search minimises g = -f: x the best point, w the second best, v the previous w.
  let x = x0;
  let gx = -fx0;
  let w = x;
  let gw = gx;
  let v = x;
  let gv = gx;
  let d = 0;
  let e = 0;
  for (let iteration = 0; iteration < 100; iteration++) {
    const middle = (a + b) / 2;
    if (Math.abs(x - middle) <= 2 * tol - (b - a) / 2) break;
    let parabolic = false;
    if (Math.abs(e) > tol) {
      const r = (x - w) * (gx - gv);
      let q = (x - v) * (gx - gw);
      let p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      q = Math.abs(q);
      const previousStep = e;
      e = d;
      // The parabola's step is taken only if under half the step before last and inside the bracket.
      const halfOfStepBeforeLast = Math.abs(0.5 * q * previousStep);
      if (Math.abs(p) < halfOfStepBeforeLast && p > q * (a - x) && p < q * (b - x)) {
        d = p / q;
        const u = x + d;
        if (u - a < 2 * tol || b - u < 2 * tol) d = middle >= x ? tol : -tol;
        parabolic = true;
      }
    }
    if (!parabolic) {
      e = (x >= middle ? a : b) - x;
      d = golden * e;
    }
    const u = Math.abs(d) >= tol ? x + d : x + (d > 0 ? tol : -tol);
    const gu = -f(u);
    if (gu <= gx) {
      if (u >= x) a = x;
      else b = x;
      v = w;
      gv = gw;
      w = x;
      gw = gx;
      x = u;
      gx = gu;
    } else {
      if (u < x) a = u;
      else b = u;
      if (gu <= gw || w === x) {
        v = w;
        gv = gw;
        w = u;
        gw = gu;
      } else if (gu <= gv || v === x || v === w) {
        v = u;
        gv = gu;
      }
    }
  }
  return { x, value: -gx };
}

/**
 * The standard error of an estimated alpha > 0, from the curvature of the adjusted profile likelihood in log alpha
 * (delta method); NaN at 0, where the estimate sits on the boundary. `counts` and `atAlpha` (the adjusted likelihood
 * at `alpha`) where the estimate has them.
 */
function overdispersionSe(
  data: GlmData,
  mu: Float64Array,
  alpha: number,
  counts: Counts = countsOf(data.units, mu),
  atAlpha?: number,
): number {
  if (!(alpha > 0)) return Number.NaN;
  const h = 0.05;
  const x = Math.log(alpha);
  const f = (y: number) => adjusted(data, counts, mu, Math.exp(y));
  const curvature = (f(x + h) - 2 * (atAlpha ?? f(x)) + f(x - h)) / (h * h);
  return curvature < 0 ? alpha / Math.sqrt(-curvature) : Number.NaN;
}
