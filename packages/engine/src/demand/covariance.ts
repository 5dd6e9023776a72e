import { createRequire } from "node:module";

type MathJs = typeof import("mathjs");

// mathjs takes about 0.7 s to import (its one entry loads the whole library): loaded on the first fit rather than
// with the engine, so a process that never fits (most tests, the CLI's other commands) does not pay for it.
const require = createRequire(import.meta.url);
let mathjs: MathJs | undefined;

/**
 * Diagonal of A^-1 (the variances when A is a positive-definite information matrix), A row-major n x n; null when
 * A is singular. Through mathjs, the home of the demand model's linear algebra: once per fit, it is not hot.
 */
export function inverseDiagonal(a: Float64Array, n: number): Float64Array | null {
  mathjs ??= require("mathjs") as MathJs;
  const rows = Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n)));
  let inverse: number[][];
  try {
    inverse = mathjs.inv(rows);
  } catch {
    return null;
  }
  return Float64Array.from(inverse, (row, i) => row[i] ?? Number.NaN);
}
