import { inv } from "mathjs";

/**
 * Diagonal of A^-1 (the variances when A is a positive-definite information matrix), A row-major n x n; null when
 * A is singular. Through mathjs, the home of the demand model's linear algebra: once per fit, it is not hot.
 */
export function inverseDiagonal(a: Float64Array, n: number): Float64Array | null {
  const rows = Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n)));
  let inverse: number[][];
  try {
    inverse = inv(rows);
  } catch {
    return null;
  }
  return Float64Array.from(inverse, (row, i) => row[i] ?? Number.NaN);
}
