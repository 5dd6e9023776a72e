/**
 * Diagonal of A^-1 (the variances when A is a positive-definite information matrix), A row-major n x n; null when
 * A is singular.
 *
 * mathjs `inv`'s Gauss-Jordan elimination with partial pivoting, written out on numbers: the same operations in the
 * same order, so the same bits (`covariance.test.ts` checks it against mathjs, the reference). Hand-written because
 * it measured too slow on the plan's hot path: every fit whose standard errors are read inverts its information
 * matrix (200 of a 100-product company's fits), and through mathjs's typed functions that was 744 of the demand
 * fit's 1,690 ms in a profile of `bench:scale`'s plan thread (6 companies). 200 inverses of 8 x 8 information
 * matrices: mathjs 11.4-12.7 ms, this kernel 1.4-1.5 ms (CPU p50 of 21, interleaved, Node 20, load average 10);
 * and a thread that never fits through mathjs never loads it (0.6-0.7 s on an idle machine, 2.8 s at load 10).
 */
export function inverseDiagonal(a: Float64Array, n: number): Float64Array | null {
  if (n === 1) {
    const value = a[0] ?? Number.NaN;
    return value === 0 ? null : Float64Array.of(1 / value);
  }
  if (n === 2) {
    const m00 = a[0] ?? Number.NaN;
    const m01 = a[1] ?? Number.NaN;
    const m10 = a[2] ?? Number.NaN;
    const m11 = a[3] ?? Number.NaN;
    const det = m00 * m11 - m10 * m01;
    return det === 0 ? null : Float64Array.of(m11 / det, m00 / det);
  }
  if (n < 1) return null;
  // Rows of A and of B (the identity, in the end the inverse) in two scratch matrices; `row` maps each row's place
  // to where it is stored, so a pivot swaps two entries of it, as mathjs swaps whole rows (the same operations,
  // without the 2n row arrays an inverse took).
  if (scratchA.length < n * n) {
    scratchA = new Float64Array(n * n);
    scratchB = new Float64Array(n * n);
    scratchRow = new Int32Array(n);
  }
  const ma = scratchA;
  const mb = scratchB;
  const row = scratchRow;
  for (let i = 0; i < n * n; i++) {
    ma[i] = a[i] ?? Number.NaN;
    mb[i] = 0;
  }
  for (let i = 0; i < n; i++) {
    mb[i * n + i] = 1;
    row[i] = i;
  }
  for (let c = 0; c < n; c++) {
    let big = Math.abs(ma[(row[c] ?? 0) * n + c] ?? Number.NaN);
    let pivot = c;
    for (let r = c + 1; r < n; r++) {
      const candidate = Math.abs(ma[(row[r] ?? 0) * n + c] ?? Number.NaN);
      if (candidate > big) {
        big = candidate;
        pivot = r;
      }
    }
    if (big === 0) return null;
    if (pivot !== c) {
      const stored = row[c] ?? 0;
      row[c] = row[pivot] ?? 0;
      row[pivot] = stored;
    }
    const ac = (row[c] ?? 0) * n;
    for (let r = 0; r < n; r++) {
      const ar = (row[r] ?? 0) * n;
      if (r !== c) {
        const arc = ma[ar + c] ?? Number.NaN;
        if (arc !== 0) {
          const f = -arc / (ma[ac + c] ?? Number.NaN);
          for (let s = c; s < n; s++)
            ma[ar + s] = (ma[ar + s] ?? Number.NaN) + f * (ma[ac + s] ?? Number.NaN);
          for (let s = 0; s < n; s++)
            mb[ar + s] = (mb[ar + s] ?? Number.NaN) + f * (mb[ac + s] ?? Number.NaN);
        }
      } else {
        const f = ma[ac + c] ?? Number.NaN;
        for (let s = c; s < n; s++) ma[ar + s] = (ma[ar + s] ?? Number.NaN) / f;
        for (let s = 0; s < n; s++) mb[ar + s] = (mb[ar + s] ?? Number.NaN) / f;
      }
    }
  }
  const diagonal = new Float64Array(n);
  for (let i = 0; i < n; i++) diagonal[i] = mb[(row[i] ?? 0) * n + i] ?? Number.NaN;
  return diagonal;
}

/** `inverseDiagonal`'s scratch, grown to the largest matrix met; every entry read is written first in each call. */
let scratchA = new Float64Array(81);
let scratchB = new Float64Array(81);
let scratchRow = new Int32Array(9);
