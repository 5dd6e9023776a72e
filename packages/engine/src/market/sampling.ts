import { type DemandDistribution, demandPmf } from "../problem/sales-distribution.js";

/** A seeded uniform generator on [0, 1), e.g. `seedrandom(seed)`. */
export type Uniform = () => number;

/** One Poisson(rate) draw by inversion (exact; cost grows with the rate, fine for daily unit counts). */
export function samplePoisson(rng: Uniform, rate: number): number {
  if (rate <= 0) return 0;
  if (rate > 500) {
    // Inversion underflows exp(-rate) here; the normal approximation is exact enough at this volume.
    const u1 = Math.max(rng(), 1e-300);
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng());
    return Math.max(0, Math.round(rate + Math.sqrt(rate) * z));
  }
  const u = rng();
  let k = 0;
  let p = Math.exp(-rate);
  let cdf = p;
  while (u > cdf && k < 10_000) {
    k++;
    p *= rate / k;
    cdf += p;
  }
  return k;
}

/**
 * One day's demand at `rate` under `law` from one uniform (inversion), so two policies on the same seed share their
 * luck (common random numbers): Bernoulli and Poisson exactly as the markets always drew them, a negative binomial
 * by inverting its distribution.
 */
export function sampleDemand(rng: Uniform, law: DemandDistribution, rate: number): number {
  if (law.distribution === "bernoulli") return rng() < Math.min(1, rate) ? 1 : 0;
  if (law.distribution === "poisson" || !(law.overdispersion > 0)) return samplePoisson(rng, rate);
  if (!(rate > 0)) return 0;
  const { first, probs } = demandPmf(law, rate);
  const u = rng();
  let cdf = 0;
  for (let k = 0; k < probs.length; k++) {
    cdf += probs[k] ?? 0;
    if (u <= cdf) return first + k;
  }
  return first + probs.length - 1;
}

export function uniformBetween(rng: Uniform, lo: number, hi: number): number {
  return lo + (hi - lo) * rng();
}
