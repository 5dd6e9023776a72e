import { type DemandDistribution, type DemandPmf, demandPmf } from "../problem/sales-distribution.js";
import { samplePoisson, type Uniform } from "../random/random-draws.js";

/**
 * One day's demand at `rate` under `law` from one uniform (inversion), so two policies on the same seed share their
 * luck (common random numbers): Bernoulli and Poisson exactly as the markets always drew them, a negative binomial
 * by inverting its distribution (`pmfOf`: `demandPmf` of the law, or a cache of it).
 */
export function sampleDemand(
  rng: Uniform,
  law: DemandDistribution,
  rate: number,
  pmfOf: (rate: number) => DemandPmf = (r) => demandPmf(law, r),
): number {
  if (law.distribution === "bernoulli") return rng() < Math.min(1, rate) ? 1 : 0;
  if (law.distribution === "poisson" || !(law.overdispersion > 0)) return samplePoisson(rng, rate);
  if (!(rate > 0)) return 0;
  const { first, probs } = pmfOf(rate);
  const u = rng();
  let cdf = 0;
  for (let k = 0; k < probs.length; k++) {
    cdf += probs[k] ?? 0;
    if (u <= cdf) return first + k;
  }
  return first + probs.length - 1;
}
