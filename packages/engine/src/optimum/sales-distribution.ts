const lnFactorials: number[] = [0];

function lnFactorial(k: number): number {
  for (let i = lnFactorials.length; i <= k; i++) lnFactorials.push(lnFactorials[i - 1]! + Math.log(i));
  return lnFactorials[k]!;
}

/**
 * Distribution of one day's demand D: `pmf[k]` = P(D = k) for k < pmf.length; the mass beyond is below 1e-15.
 * Bernoulli: one unit with probability min(rate, 1).
 */
export function demandPmf(distribution: "poisson" | "bernoulli", rate: number): Float64Array {
  if (rate <= 0) return Float64Array.of(1);
  if (distribution === "bernoulli") {
    const q = Math.min(rate, 1);
    return Float64Array.of(1 - q, q);
  }
  // Beyond 9 standard deviations (plus a margin for small rates) the Poisson tail is below 1e-15.
  const kMax = Math.ceil(rate + 9 * Math.sqrt(rate) + 12);
  const pmf = new Float64Array(kMax + 1);
  const lr = Math.log(rate);
  for (let k = 0; k <= kMax; k++) pmf[k] = Math.exp(-rate + k * lr - lnFactorial(k));
  return pmf;
}

/** Expected demand of a day, uncapped: the rate for Poisson, min(rate, 1) for Bernoulli. */
export function expectedDemand(distribution: "poisson" | "bernoulli", rate: number): number {
  return distribution === "bernoulli" ? Math.min(Math.max(rate, 0), 1) : Math.max(rate, 0);
}

/** E[min(D, cap)] for D with the given pmf (mass beyond the pmf is negligible by construction). */
export function expectedCapped(pmf: Float64Array, cap: number): number {
  let below = 0;
  let mean = 0;
  const top = Math.min(cap - 1, pmf.length - 1);
  for (let k = 0; k <= top; k++) {
    below += pmf[k]!;
    mean += k * pmf[k]!;
  }
  return mean + Math.max(0, 1 - below) * cap;
}
