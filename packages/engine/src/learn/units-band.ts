import {
  type DemandDistribution,
  negativeBinomial,
  overdispersionOf,
} from "../problem/sales-distribution.js";

/** Share of the mass at p10 and at p90 counted outside the interval (0: plain quantiles). */
export const QUANTILE_END_SHARE = 0.25;

/** Expected units on a day and their 10th / 90th percentiles (parameter and sales noise), as a plan serves them. */
export interface LearnedUnits {
  readonly expectedUnits: number;
  readonly unitsP10: number;
  readonly unitsP90: number;
}

/**
 * Absolute error, in units, the expected units may carry where the scan stops before the stock: the plan rounds
 * them to 4 decimals, so this moves one row's rounding about once in 10^8 rows.
 */
const EXPECTED_TOLERANCE = 1e-12;

/** A first term below this (a rate in the hundreds without over-dispersion) is left to the pmfs' windows. */
const SMALLEST_FIRST_TERM = 1e-280;

let terms = new Float64Array(64);
let ratios = new Float64Array(64);

/**
 * `unitsInterval` of the equal mixture of the day's demand at each of `rates`, sold up to `stock`, without building
 * a pmf per rate: the counts are walked upwards from 0 with every rate's term kept by its ratio to the last
 * (P(u + 1) / P(u) = (u + r) / (u + 1) q for NB2, rate / (u + 1) for Poisson), only until p90 is passed and the
 * rest of the tails can no longer move the expected units (at infinite or far stock they are the mean rate).
 * The counts are the ones the pmfs' windows cover and each term is the same probability to rounding, so the band
 * is the pmfs' (learning-plan-golden pins it). As with the pmfs, a whole stock takes the mass of every count from
 * it up; a fractional one (a plan rolls its stock forward by expected units) ends the counts at its floor and
 * leaves the rest out. Null for Bernoulli demand or a first term that underflows: those use the pmfs.
 * `reach`, given, is told the last count the walk read where it stopped short of the stock (the band is then the
 * same at any stock above that count, whole or not), else Infinity.
 */
export function mixtureBand(
  law: DemandDistribution,
  rates: Float64Array,
  count: number,
  stock: number,
  reach?: { units: number },
): LearnedUnits | null {
  if (law.distribution === "bernoulli") return null;
  if (terms.length < count) {
    terms = new Float64Array(2 * count);
    ratios = new Float64Array(2 * count);
  }
  const alpha = overdispersionOf(law);
  const r = alpha > 0 ? 1 / alpha : 0;
  let mean = 0;
  for (let k = 0; k < count; k++) {
    const rate = rates[k] ?? 0;
    if (!(rate > 0)) {
      // No demand: all the mass at 0 (`demandPmf`'s empty window).
      terms[k] = 1;
      ratios[k] = 0;
      continue;
    }
    mean += rate / count;
    const first = alpha > 0 ? Math.exp(-r * Math.log1p(alpha * rate)) : Math.exp(-rate);
    if (!(first >= SMALLEST_FIRST_TERM)) return null;
    terms[k] = first;
    ratios[k] = alpha > 0 ? (alpha * rate) / (1 + alpha * rate) : rate;
  }
  const whole = Number.isInteger(stock);
  const last = whole ? stock : Math.floor(stock);
  let expected = 0;
  let cdf = 0;
  let p10 = -1;
  let p90 = -1;
  let top = -1;
  let reached = false;
  // The mixture's mass at the current count, summed as the terms are (in draw order).
  let mixed = 0;
  for (let k = 0; k < count; k++) mixed += (terms[k] as number) / count;
  for (let units = 0; ; units++) {
    const p = whole && units === last ? Math.max(0, 1 - cdf) : mixed;
    expected += units * p;
    const below = cdf;
    cdf += p;
    if (p10 < 0 && cdf - QUANTILE_END_SHARE * p >= 0.1) p10 = units;
    if (below + QUANTILE_END_SHARE * p <= 0.9 || p90 < 0) p90 = units;
    top = units;
    if (units >= last) {
      reached = true;
      break;
    }
    // The next count's terms and their mass, and a bound on every rate's expected units beyond this count.
    let tail = 0;
    mixed = 0;
    const judged = p10 >= 0 && cdf > 0.9;
    const step = (units + r) / (units + 1);
    const nextStep = (units + 1 + r) / (units + 2);
    // The next count's terms, the law's branch taken once per count.
    if (alpha > 0) {
      for (let k = 0; k < count; k++) {
        const next = (terms[k] as number) * (step * (ratios[k] as number));
        terms[k] = next;
        mixed += next / count;
      }
    } else {
      for (let k = 0; k < count; k++) {
        const next = (terms[k] as number) * ((ratios[k] as number) / (units + 1));
        terms[k] = next;
        mixed += next / count;
      }
    }
    // Before p90 no tail is bounded. Past it, each term's bound below is at least the term times (units + 1), so
    // the bound of the whole tail cannot fall under the tolerance while the mixed mass times (units + 1) is above
    // twice it (rounding far inside the factor 2): the bounds are summed only near the walk's end, and the walk
    // stops where it always did.
    if (!judged || !(mixed * (units + 1) <= 2 * EXPECTED_TOLERANCE)) continue;
    for (let k = 0; k < count; k++) {
      const ratio = ratios[k] as number;
      const next = terms[k] as number;
      if (next === 0) continue;
      // Past the mode the ratios fall (NB2 with r >= 1, Poisson) or approach q from below (r < 1): bounded by
      // the next one, or by q.
      const bound = alpha > 0 ? Math.max(nextStep * ratio, r < 1 ? ratio : 0) : ratio / (units + 2);
      tail +=
        bound < 1 ? next * ((units + 1) / (1 - bound) + bound / (1 - bound) ** 2) : Number.POSITIVE_INFINITY;
    }
    if (judged && tail / count < EXPECTED_TOLERANCE) break;
  }
  if (reach !== undefined) reach.units = reached ? Number.POSITIVE_INFINITY : top;
  return {
    expectedUnits: Math.round((reached ? expected : mean) * 10_000) / 10_000,
    unitsP10: Math.max(0, p10 < 0 ? top : p10),
    unitsP90: Math.max(0, p10, p90 < 0 ? top : p90),
  };
}

/** The single rate `matchedBand` walks (a module scratch: a plan asks for thousands of bands). */
const matchedRate = new Float64Array(1);

/**
 * The band of the negative binomial with the equal mixture's mean and variance (of the day's demand at each of
 * `rates`): mean m = E[rate], alpha* = (Var - m) / m^2 with Var = m + alpha E[rate^2] + Var(rate), walked as
 * `mixtureBand` walks one rate. The mixture's walk kept every rate's term at every count, the plan's costliest
 * rows after the demand fit; this walk keeps one. Its bands are a little wider than the mixture's (26 Nov 2026,
 * bench:real's daily p10-p90 coverage 83.1/82.3 % -> 83.8/82.6 %) and the prices the same. Null where
 * `mixtureBand` would be (Bernoulli demand, an underflowing first term).
 */
export function matchedBand(
  law: DemandDistribution,
  rates: Float64Array,
  count: number,
  stock: number,
  reach?: { units: number },
): LearnedUnits | null {
  if (law.distribution === "bernoulli") return null;
  let sum = 0;
  let squares = 0;
  for (let k = 0; k < count; k++) {
    const rate = Math.max(0, rates[k] ?? 0);
    sum += rate;
    squares += rate * rate;
  }
  const mean = sum / count;
  const second = squares / count;
  const alpha =
    mean > 0 ? (overdispersionOf(law) * second + Math.max(0, second - mean * mean)) / (mean * mean) : 0;
  matchedRate[0] = mean;
  return mixtureBand(negativeBinomial(alpha), matchedRate, 1, stock, reach);
}
