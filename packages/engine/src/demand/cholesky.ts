/**
 * Solves A x = b for a symmetric positive-definite A (row-major, n x n) by Cholesky; returns null when A is not
 * numerically positive definite. Small dense systems only (the GLM has 8 parameters).
 */
export function choleskySolve(a: Float64Array, b: Float64Array, n: number): Float64Array | null {
  const l = choleskyFactor(a, n);
  if (!l) return null;
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i * n + k]! * y[k]!;
    y[i] = s / l[i * n + i]!;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

/** Diagonal of A^-1 (variances when A is an information matrix), or null when A is singular. */
export function inverseDiagonal(a: Float64Array, n: number): Float64Array | null {
  const out = new Float64Array(n);
  const e = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    e.fill(0);
    e[j] = 1;
    const col = choleskySolve(a, e, n);
    if (!col) return null;
    out[j] = col[j]!;
  }
  return out;
}

function choleskyFactor(a: Float64Array, n: number): Float64Array | null {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) s -= l[i * n + k]! * l[j * n + k]!;
      if (i === j) {
        if (!(s > 1e-12)) return null;
        l[i * n + i] = Math.sqrt(s);
      } else {
        l[i * n + j] = s / l[j * n + j]!;
      }
    }
  }
  return l;
}
