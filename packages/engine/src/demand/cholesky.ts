/**
 * Solves A x = b for a symmetric positive-definite A (row-major, n x n) by Cholesky into `x` (length >= n); false
 * when A is not numerically positive definite. Small dense systems only (the GLM has 8 parameters). The factor and
 * the forward substitution live in scratch arrays reused across calls: a fit solves ~900 small systems, and three
 * typed arrays a solve were a measurable share of its allocations.
 *
 * Hand-written rather than mathjs because it is the Newton step, the hot path of the demand fit (about 930 solves
 * of 8 x 8 systems in a 100-product fit): fitting the 100-product company of `fit-demand.test.ts` took 42 ms with
 * this kernel against 75 ms with mathjs `lusolve` (best of 12, interleaved, same machine, Node 20). The covariance
 * is mathjs's Gauss-Jordan written out, see `covariance.ts`.
 */
export function choleskySolveInto(a: Float64Array, b: Float64Array, n: number, x: Float64Array): boolean {
  const l = choleskyFactor(a, n);
  if (!l) return false;
  if (forward.length < n) forward = new Float64Array(n);
  const y = forward;
  for (let i = 0; i < n; i++) {
    let s = b[i] ?? Number.NaN;
    for (let k = 0; k < i; k++) s -= (l[i * n + k] ?? Number.NaN) * (y[k] ?? Number.NaN);
    y[i] = s / (l[i * n + i] ?? Number.NaN);
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i] ?? Number.NaN;
    for (let k = i + 1; k < n; k++) s -= (l[k * n + i] ?? Number.NaN) * (x[k] ?? Number.NaN);
    x[i] = s / (l[i * n + i] ?? Number.NaN);
  }
  return true;
}

/** Whether A is numerically positive definite (its Cholesky factor exists). */
export function isPositiveDefinite(a: Float64Array, n: number): boolean {
  return choleskyFactor(a, n) !== null;
}

/**
 * The lower Cholesky factor of A in `factor` (scratch, reused), or null. Every entry read is written earlier in the
 * same call (the lower triangle, row by row), so the scratch needs no clearing.
 */
function choleskyFactor(a: Float64Array, n: number): Float64Array | null {
  if (factor.length < n * n) factor = new Float64Array(n * n);
  const l = factor;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j] ?? Number.NaN;
      for (let k = 0; k < j; k++) s -= (l[i * n + k] ?? Number.NaN) * (l[j * n + k] ?? Number.NaN);
      if (i === j) {
        if (!(s > 1e-12)) return null;
        l[i * n + i] = Math.sqrt(s);
      } else {
        l[i * n + j] = s / (l[j * n + j] ?? Number.NaN);
      }
    }
  }
  return l;
}

/** `choleskyFactor`'s and `choleskySolveInto`'s scratch, grown to the largest system met. */
let factor = new Float64Array(81);
let forward = new Float64Array(9);
