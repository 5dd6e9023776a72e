import type { Uniform } from "../market/sampling.js";

/**
 * Largest standard deviation of a drawn parameter: a fit of a day or two without sales has an intercept error in
 * the thousands, which says "unknown" (the per-price posteriors take over), not "rates up to e^1000".
 */
const MAX_PARAMETER_SD = 1;

/** The standard deviation a parameter is drawn with: its standard error, at most `MAX_PARAMETER_SD` (also for NaN / Infinity). */
export function parameterSd(standardError: number): number {
  return Math.min(MAX_PARAMETER_SD, Number.isFinite(standardError) ? standardError : MAX_PARAMETER_SD);
}

/** One standard normal draw (Box-Muller; the second variate is dropped so each call uses exactly two uniforms). */
export function sampleNormal(rng: Uniform): number {
  const u = Math.max(rng(), 1e-300);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** One Gamma(shape, rate) draw (Marsaglia & Tsang 2000; shape < 1 by the u^(1/shape) boost). */
export function sampleGamma(rng: Uniform, shape: number, rate: number): number {
  if (!(shape > 0) || !(rate > 0)) return 0;
  // Beyond this the draw is its mean to 1e-4 relative, and Marsaglia-Tsang's acceptance test loses precision.
  if (shape > 1e8) return shape / rate;
  if (shape < 1) return sampleGamma(rng, shape + 1, rate) * Math.max(rng(), 1e-300) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const z = sampleNormal(rng);
    const v = (1 + c * z) ** 3;
    if (v <= 0) continue;
    const u = rng();
    if (Math.log(Math.max(u, 1e-300)) < 0.5 * z * z + d - d * v + d * Math.log(v)) return (d * v) / rate;
  }
}
