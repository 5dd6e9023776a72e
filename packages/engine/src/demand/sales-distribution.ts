/**
 * One day's demand and sales, as exact probability vectors: the DP and the policy evaluator (optimum/) and the RL
 * simulator's Bellman targets (policy/) all read them, so none of them carries sampling noise. Demand D ~
 * Poisson(rate) or, for "bernoulli", one unit with probability min(rate, 1); units sold = min(D, stock).
 */
export type DemandDistribution = "poisson" | "bernoulli";

export interface DemandPmf {
  /** Smallest demand with non-negligible probability. */
  readonly first: number;
  /** probs[k] = P(D = first + k); the mass outside [first, first + probs.length) is negligible (about 1e-15). */
  readonly probs: Float64Array;
}

const TAIL_SIGMAS = 9;

const logFactorials: number[] = [0];
function logFactorial(k: number): number {
  while (logFactorials.length <= k) {
    const n = logFactorials.length;
    logFactorials.push((logFactorials[n - 1] ?? Number.NaN) + Math.log(n));
  }
  return logFactorials[k] ?? Number.NaN;
}

const NO_DEMAND: DemandPmf = { first: 0, probs: Float64Array.of(1) };

export function demandPmf(distribution: DemandDistribution, rate: number): DemandPmf {
  if (!(rate > 0)) return NO_DEMAND;
  if (distribution === "bernoulli") {
    const q = Math.min(rate, 1);
    return { first: 0, probs: Float64Array.of(1 - q, q) };
  }
  const spread = TAIL_SIGMAS * Math.sqrt(rate) + 6;
  const first = Math.max(0, Math.floor(rate - spread));
  const last = Math.ceil(rate + spread);
  const probs = new Float64Array(last - first + 1);
  const logRate = Math.log(rate);
  for (let k = first; k <= last; k++) probs[k - first] = Math.exp(k * logRate - rate - logFactorial(k));
  return { first, probs };
}

/** E[D], uncapped: the rate for Poisson, min(rate, 1) for Bernoulli. */
export function expectedDemand(distribution: DemandDistribution, rate: number): number {
  return distribution === "bernoulli" ? Math.min(Math.max(rate, 0), 1) : Math.max(rate, 0);
}

/** E[min(D, cap)] in units for D with the given pmf; `cap` may be fractional or Infinity. */
export function expectedCapped(pmf: DemandPmf, cap: number): number {
  const { first, probs } = pmf;
  let mean = 0;
  if (cap === Number.POSITIVE_INFINITY) {
    for (let k = 0; k < probs.length; k++) mean += (probs[k] ?? Number.NaN) * (first + k);
    return mean;
  }
  let below = 0;
  for (let k = 0; k < probs.length; k++) {
    const d = first + k;
    if (d >= cap) break;
    mean += (probs[k] ?? Number.NaN) * d;
    below += probs[k] ?? Number.NaN;
  }
  // Demand of `cap` units or more (and the negligible mass outside the pmf) sells out.
  return mean + Math.max(0, 1 - below) * cap;
}

/**
 * E[min(D, stock)] in units, exactly; the distribution is only built when the stock could run out today, which
 * keeps this cheap enough for planning a date range.
 */
export function expectedSales(distribution: DemandDistribution, rate: number, stock: number): number {
  const mean = distribution === "bernoulli" ? Math.min(rate, 1) : rate;
  if (stock >= mean + 12 * Math.sqrt(mean) + 12) return mean;
  return expectedCapped(demandPmf(distribution, rate), stock);
}

/** Poisson rates above this use the normal approximation in `approxExpectedSales`. */
const NORMAL_ABOVE = 100;

/** erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7). */
function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const z = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * z);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign * (1 - poly * Math.exp(-z * z));
}

/**
 * E[min(D, stock)] in units without building the distribution: a short recursion for small Poisson rates, the
 * normal approximation (with continuity correction) for large ones, where the loop would be long. Fast enough
 * for the RL network's per-state inputs; `expectedSales` is the exact version.
 */
export function approxExpectedSales(distribution: DemandDistribution, rate: number, stock: number): number {
  if (!(rate > 0) || !(stock > 0)) return 0;
  if (distribution === "bernoulli") return Math.min(rate, 1) * Math.min(stock, 1);
  if (stock >= rate + 8 * Math.sqrt(rate) + 8) return rate;
  if (rate > NORMAL_ABOVE) {
    const sigma = Math.sqrt(rate);
    const z = (stock + 0.5 - rate) / sigma;
    const density = Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
    const upper = 0.5 * (1 - erf(z / Math.SQRT2));
    // E[(D - s)+] for D ~ N(rate, rate), the units demand exceeds stock by.
    const excess = sigma * density - (stock + 0.5 - rate) * upper;
    return Math.max(0, Math.min(stock, rate - Math.max(0, excess)));
  }
  // E[min(D, s)] = sum over k < s of P(D > k), plus the fractional part of s times P(D > floor(s)).
  const whole = Math.floor(stock);
  let p = Math.exp(-rate);
  let cdf = p;
  let sum = 0;
  for (let k = 0; k < whole; k++) {
    sum += 1 - cdf;
    p *= rate / (k + 1);
    cdf += p;
  }
  return sum + (stock - whole) * Math.max(0, 1 - cdf);
}
