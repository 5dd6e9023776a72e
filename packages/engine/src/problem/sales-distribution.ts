/**
 * One day's demand and sales, as exact probability vectors: the DP and the policy evaluator (optimum/) and the RL
 * simulator's Bellman targets (policy/) all read them, so none of them carries sampling noise. Demand D around a
 * rate: Poisson(rate); negative binomial (NB2: variance rate + alpha rate^2, the Gamma-Poisson mixture real daily
 * sales follow); or, for "bernoulli", one unit with probability min(rate, 1). Units sold = min(D, stock).
 */
export type DemandFamily = "poisson" | "negative_binomial" | "bernoulli";

/**
 * The law of a day's demand around its rate: the two fields every selling problem carries (`PricingProblem`), so a
 * problem or a setup is passed where a distribution is asked for.
 */
export interface DemandDistribution {
  readonly distribution: DemandFamily;
  /** alpha >= 0 of "negative_binomial" (variance = rate + alpha rate^2); 0 for the other families. */
  readonly overdispersion: number;
}

export const POISSON: DemandDistribution = { distribution: "poisson", overdispersion: 0 };
export const BERNOULLI: DemandDistribution = { distribution: "bernoulli", overdispersion: 0 };

/** NB2 demand with over-dispersion `alpha`; Poisson when alpha is 0 (or not positive). */
export function negativeBinomial(alpha: number): DemandDistribution {
  return alpha > 0 ? { distribution: "negative_binomial", overdispersion: alpha } : POISSON;
}

/** The over-dispersion the law applies: alpha for a negative binomial, 0 otherwise. */
export function overdispersionOf(law: DemandDistribution): number {
  return law.distribution === "negative_binomial" ? Math.max(0, law.overdispersion) : 0;
}

/** Var[D] at `rate`, uncapped (units^2). */
export function demandVariance(law: DemandDistribution, rate: number): number {
  if (!(rate > 0)) return 0;
  if (law.distribution === "bernoulli") {
    const q = Math.min(rate, 1);
    return q * (1 - q);
  }
  return rate + overdispersionOf(law) * rate * rate;
}

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

export function demandPmf(law: DemandDistribution, rate: number): DemandPmf {
  if (!(rate > 0)) return NO_DEMAND;
  if (law.distribution === "bernoulli") {
    const q = Math.min(rate, 1);
    return { first: 0, probs: Float64Array.of(1 - q, q) };
  }
  const alpha = overdispersionOf(law);
  if (alpha > 0) return negativeBinomialPmf(rate, alpha, true);
  const spread = TAIL_SIGMAS * Math.sqrt(rate) + 6;
  const first = Math.max(0, Math.floor(rate - spread));
  const last = Math.ceil(rate + spread);
  const probs = new Float64Array(last - first + 1);
  const logRate = Math.log(rate);
  for (let k = first; k <= last; k++) probs[k - first] = Math.exp(k * logRate - rate - logFactorial(k));
  return { first, probs };
}

/** Relative size, against the largest term, below which the negative binomial's tail terms are dropped. */
const NB_TAIL = 1e-17;

const LOG_NB_TAIL = Math.log(NB_TAIL);

/**
 * log((k + r) / (k + 1)) for k = 0, 1, ... by r: the terms' ratios depend on the law alone, not the rate, and a
 * plan builds thousands of pmfs of each product's law. Bounded: cleared when it holds `RATIO_LAWS` laws.
 */
const logRatios = new Map<number, Float64Array>();
const RATIO_LAWS = 512;

function logRatiosOf(r: number, upTo: number): Float64Array {
  let table = logRatios.get(r);
  if (table === undefined || table.length <= upTo) {
    const grown = new Float64Array(Math.max(64, 2 * (upTo + 1)));
    const known = table?.length ?? 0;
    if (table !== undefined) grown.set(table);
    for (let k = known; k < grown.length; k++) grown[k] = Math.log((k + r) / (k + 1));
    if (table === undefined && logRatios.size >= RATIO_LAWS) logRatios.clear();
    logRatios.set(r, grown);
    table = grown;
  }
  return table;
}

/** The window's terms in logs, reused from pmf to pmf (a pmf copies what it keeps). */
let logScratch = new Float64Array(256);

/**
 * NB2(rate, alpha) by the ratio of successive terms, P(k + 1) / P(k) = (k + r) / (k + 1) x q with r = 1 / alpha and
 * q = alpha rate / (1 + alpha rate), in logs from the window's first count (no gamma function: the window is
 * normalised), until the rest of the tail, a geometric series at the current ratio, is negligible. The tail is
 * heavier than Poisson's: at alpha 2 and rate 50 the window runs to about 3,700 units.
 */
function negativeBinomialPmf(rate: number, alpha: number, keep: boolean): DemandPmf {
  const r = 1 / alpha;
  const logQ = Math.log((alpha * rate) / (1 + alpha * rate));
  const sd = Math.sqrt(rate + alpha * rate * rate);
  const first = Math.max(0, Math.floor(rate - TAIL_SIGMAS * sd - 6));
  let ratios = logRatiosOf(r, first + 64);
  let logs = logScratch;
  logs[0] = 0;
  let n = 1;
  let top = 0;
  for (let k = first; ; k++) {
    if (k >= ratios.length) ratios = logRatiosOf(r, k);
    const logRatio = (ratios[k] ?? 0) + logQ;
    const last = logs[n - 1] ?? 0;
    // Past the mode the terms fall by at least the current ratio, so the rest of the tail sums to at most
    // term / (1 - ratio). That bound is never below the term itself: the log is only taken once the term is small.
    const bound = top + LOG_NB_TAIL;
    if (k > rate && logRatio < 0 && last < bound && last - Math.log(-Math.expm1(logRatio)) < bound) break;
    const next = last + logRatio;
    if (n === logs.length) {
      const grown = new Float64Array(2 * n);
      grown.set(logs);
      logs = grown;
      logScratch = grown;
    }
    logs[n++] = next;
    if (next > top) top = next;
  }
  // Each term replaces its log: the scratch holds the probabilities once done.
  let total = 0;
  for (let j = 0; j < n; j++) {
    const p = Math.exp((logs[j] ?? 0) - top);
    logs[j] = p;
    total += p;
  }
  for (let j = 0; j < n; j++) logs[j] = (logs[j] ?? 0) / total;
  return { first, probs: keep ? logs.slice(0, n) : logs.subarray(0, n) };
}

/**
 * `demandPmf` for a caller that reads the pmf before it asks for the next one (the online learner's band mixes 48
 * of them a row): the negative binomial's probabilities are a view of a buffer the next call overwrites, so none is
 * allocated.
 */
export function transientDemandPmf(law: DemandDistribution, rate: number): DemandPmf {
  const alpha = overdispersionOf(law);
  return law.distribution !== "bernoulli" && alpha > 0 && rate > 0
    ? negativeBinomialPmf(rate, alpha, false)
    : demandPmf(law, rate);
}

/** E[D], uncapped: the rate (Poisson, negative binomial), min(rate, 1) for Bernoulli. */
export function expectedDemand(law: DemandDistribution, rate: number): number {
  return law.distribution === "bernoulli" ? Math.min(Math.max(rate, 0), 1) : Math.max(rate, 0);
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
export function expectedSales(law: DemandDistribution, rate: number, stock: number): number {
  const mean = expectedDemand(law, rate);
  if (stock >= mean + 12 * demandSd(law, rate) + 12) return mean;
  return expectedCapped(demandPmf(law, rate), stock);
}

/** The standard deviation of demand as the tail tests read it: sqrt(mean) for Poisson and Bernoulli, as before. */
function demandSd(law: DemandDistribution, rate: number): number {
  const mean = expectedDemand(law, rate);
  const alpha = overdispersionOf(law);
  return alpha > 0 ? Math.sqrt(mean + alpha * mean * mean) : Math.sqrt(mean);
}

/** Rates above this use the normal approximation in `approxExpectedSales`. */
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
 * E[min(D, stock)] in units without building the distribution: a short recursion for small rates, the normal
 * approximation (with continuity correction) for large ones, where the loop would be long. Fast enough for the RL
 * network's per-state inputs; `expectedSales` is the exact version.
 */
export function approxExpectedSales(law: DemandDistribution, rate: number, stock: number): number {
  if (!(rate > 0) || !(stock > 0)) return 0;
  if (law.distribution === "bernoulli") return Math.min(rate, 1) * Math.min(stock, 1);
  const sigma = demandSd(law, rate);
  if (stock >= rate + 8 * sigma + 8) return rate;
  if (rate > NORMAL_ABOVE) {
    const z = (stock + 0.5 - rate) / sigma;
    const density = Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
    const upper = 0.5 * (1 - erf(z / Math.SQRT2));
    // E[(D - s)+] for D ~ N(rate, sigma^2), the units demand exceeds stock by.
    const excess = sigma * density - (stock + 0.5 - rate) * upper;
    return Math.max(0, Math.min(stock, rate - Math.max(0, excess)));
  }
  // E[min(D, s)] = sum over k < s of P(D > k), plus the fractional part of s times P(D > floor(s)).
  const whole = Math.floor(stock);
  const alpha = overdispersionOf(law);
  // P(D = 0) and the ratio P(k + 1) / P(k) = (k + r) / (k + 1) x q of NB2, or rate / (k + 1) of Poisson.
  const r = alpha > 0 ? 1 / alpha : 0;
  const q = alpha > 0 ? (alpha * rate) / (1 + alpha * rate) : 0;
  let p = alpha > 0 ? Math.exp(-r * Math.log1p(alpha * rate)) : Math.exp(-rate);
  let cdf = p;
  let sum = 0;
  for (let k = 0; k < whole; k++) {
    sum += 1 - cdf;
    p *= alpha > 0 ? ((k + r) / (k + 1)) * q : rate / (k + 1);
    cdf += p;
  }
  return sum + (stock - whole) * Math.max(0, 1 - cdf);
}

/**
 * `approxExpectedSales(law, rate, s)` for every whole stock s in [0, upTo], bit for bit, in one pass: the small-rate
 * recursion's partial sums are the values at the successive whole stocks, so a caller needing many stock levels of
 * one rate (the RL network's inputs on a stock grid) pays for the longest one only.
 */
export function approxExpectedSalesTable(law: DemandDistribution, rate: number, upTo: number): Float64Array {
  const table = new Float64Array(upTo + 1);
  if (!(rate > 0)) return table;
  if (law.distribution === "bernoulli" || rate > NORMAL_ABOVE) {
    for (let s = 1; s <= upTo; s++) table[s] = approxExpectedSales(law, rate, s);
    return table;
  }
  const ample = rate + 8 * demandSd(law, rate) + 8;
  const alpha = overdispersionOf(law);
  const r = alpha > 0 ? 1 / alpha : 0;
  const q = alpha > 0 ? (alpha * rate) / (1 + alpha * rate) : 0;
  let p = alpha > 0 ? Math.exp(-r * Math.log1p(alpha * rate)) : Math.exp(-rate);
  let cdf = p;
  let sum = 0;
  let k = 0;
  for (let s = 1; s <= upTo; s++) {
    if (s >= ample) {
      table[s] = rate;
      continue;
    }
    for (; k < s; k++) {
      sum += 1 - cdf;
      p *= alpha > 0 ? ((k + r) / (k + 1)) * q : rate / (k + 1);
      cdf += p;
    }
    table[s] = sum;
  }
  return table;
}
