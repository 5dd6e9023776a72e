/**
 * Largest standard deviation of a drawn parameter: a fit of a day or two without sales has an intercept error in
 * the thousands, which says "unknown" (the per-price posteriors take over), not "rates up to e^1000".
 */
const MAX_PARAMETER_SD = 1;

/** The standard deviation a parameter is drawn with: its standard error, at most `MAX_PARAMETER_SD` (also for NaN / Infinity). */
export function parameterSd(standardError: number): number {
  return Math.min(MAX_PARAMETER_SD, Number.isFinite(standardError) ? standardError : MAX_PARAMETER_SD);
}
