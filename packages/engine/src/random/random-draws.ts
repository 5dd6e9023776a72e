/**
 * The engine's one home for random draws. Every draw takes a seeded uniform generator (`seedrandom(seed)`), so the
 * same seed gives the same draws wherever the engine runs; each draw's use of uniforms is fixed (common random
 * numbers: two policies on one seed share their luck).
 */

/** A seeded uniform generator on [0, 1), e.g. `seedrandom(seed)`. */
export type Uniform = () => number;

export function uniformBetween(rng: Uniform, lo: number, hi: number): number {
  return lo + (hi - lo) * rng();
}

/** One standard normal draw (Box-Muller; the second variate is dropped so each call uses exactly two uniforms). */
export function sampleNormal(rng: Uniform): number {
  const u = Math.max(rng(), 1e-300);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** One Poisson(rate) draw by inversion (exact; cost grows with the rate, fine for daily unit counts). */
export function samplePoisson(rng: Uniform, rate: number): number {
  if (rate <= 0) return 0;
  // Inversion underflows exp(-rate) here; the normal approximation is exact enough at this volume.
  if (rate > 500) return Math.max(0, Math.round(rate + Math.sqrt(rate) * sampleNormal(rng)));
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
 * One Gamma(shape, rate) draw for any rate later, from `sampleGamma`'s uniforms: `scaledGamma(parts, k, rate)` is
 * the value `sampleGamma(rng, shape, rate)` draws, to the bit (its draw at rate 1, divided by the rate, times the
 * boost of a shape under 1). `parts` holds each draw's pair at `2k` and `2k + 1`; a caller that draws once and
 * rescales for many rates (a posterior moved to each price) writes them once.
 */
export function sampleGammaParts(rng: Uniform, shape: number, parts: Float64Array, k: number): void {
  if (!(shape > 0)) {
    parts[2 * k] = 0;
    parts[2 * k + 1] = 1;
    return;
  }
  // Beyond this the draw is its mean to 1e-4 relative, and Marsaglia-Tsang's acceptance test loses precision.
  if (shape > 1e8) {
    parts[2 * k] = shape;
    parts[2 * k + 1] = 1;
    return;
  }
  if (shape < 1) {
    sampleGammaParts(rng, shape + 1, parts, k);
    parts[2 * k + 1] = Math.max(rng(), 1e-300) ** (1 / shape);
    return;
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const z = sampleNormal(rng);
    const v = (1 + c * z) ** 3;
    if (v <= 0) continue;
    const u = rng();
    if (Math.log(Math.max(u, 1e-300)) < 0.5 * z * z + d - d * v + d * Math.log(v)) {
      parts[2 * k] = d * v;
      parts[2 * k + 1] = 1;
      return;
    }
  }
}

/** The `k`th draw of `sampleGammaParts` at `rate` (0 where the rate is not positive, as `sampleGamma`'s). */
export function scaledGamma(parts: Float64Array, k: number, rate: number): number {
  if (!(rate > 0)) return 0;
  return ((parts[2 * k] as number) / rate) * (parts[2 * k + 1] as number);
}

/** Scratch for `sampleGamma`'s one draw: its pair is read back at once. */
const ONE_DRAW = new Float64Array(2);

/** One Gamma(shape, rate) draw (Marsaglia & Tsang 2000; shape < 1 by the u^(1/shape) boost). */
export function sampleGamma(rng: Uniform, shape: number, rate: number): number {
  if (!(shape > 0) || !(rate > 0)) return 0;
  sampleGammaParts(rng, shape, ONE_DRAW, 0);
  return scaledGamma(ONE_DRAW, 0, rate);
}
