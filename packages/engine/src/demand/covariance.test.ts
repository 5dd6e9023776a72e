import { createRequire } from "node:module";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { inverseDiagonal } from "./covariance.js";

// mathjs is the reference of the demand model's linear algebra: the hand-written inverse must give its bits.
const require = createRequire(import.meta.url);
const mathjs = require("mathjs") as typeof import("mathjs");

function mathjsDiagonal(a: Float64Array, n: number): number[] | null {
  const rows = Array.from({ length: n }, (_, i) => Array.from(a.subarray(i * n, (i + 1) * n)));
  try {
    return mathjs.inv(rows).map((row, i) => row[i] ?? Number.NaN);
  } catch {
    return null;
  }
}

/** X'X + ridge of a random n-column design (an information matrix), or a random matrix when `general`. */
function matrix(rng: () => number, n: number, general: boolean): Float64Array {
  const a = new Float64Array(n * n);
  if (general) {
    for (let k = 0; k < n * n; k++) a[k] = rng() < 0.2 ? 0 : (rng() - 0.5) * 10 ** Math.floor(rng() * 6 - 3);
    return a;
  }
  for (let row = 0; row < 3 * n; row++) {
    const x = Array.from({ length: n }, () => (rng() < 0.3 ? 0 : rng() * 2 - 1));
    const w = rng() * 50;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) a[i * n + j] = (a[i * n + j] ?? 0) + w * (x[i] ?? 0) * (x[j] ?? 0);
  }
  for (let i = 0; i < n; i++) a[i * n + i] = (a[i * n + i] ?? 0) + 1e-9;
  return a;
}

describe("inverseDiagonal", () => {
  it("gives mathjs inv's diagonal bit for bit, on information matrices and general ones", () => {
    const rng = seedrandom("covariance");
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + (trial % 9);
      const a = matrix(rng, n, trial % 4 === 3);
      const ours = inverseDiagonal(a, n);
      const reference = mathjsDiagonal(a, n);
      expect(ours === null).toBe(reference === null);
      if (ours !== null && reference !== null)
        reference.forEach((v, i) => {
          expect(Object.is(ours[i], v)).toBe(true);
        });
    }
  });

  it("is null where A is singular, as mathjs throws", () => {
    expect(inverseDiagonal(Float64Array.of(0), 1)).toBeNull();
    expect(inverseDiagonal(Float64Array.of(1, 2, 2, 4), 2)).toBeNull();
    expect(inverseDiagonal(Float64Array.of(1, 0, 0, 0, 0, 0, 0, 0, 1), 3)).toBeNull();
    expect(mathjsDiagonal(Float64Array.of(1, 0, 0, 0, 0, 0, 0, 0, 1), 3)).toBeNull();
  });
});
