import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { sampleGamma, sampleNormal } from "../random/random-draws.js";

function moments(draw: () => number, n: number): { mean: number; variance: number } {
  const xs = Array.from({ length: n }, draw);
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  return { mean, variance: xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1) };
}

describe("posterior draws", () => {
  it("normal draws have mean 0 and variance 1", () => {
    const rng = seedrandom("normal");
    const m = moments(() => sampleNormal(rng), 20_000);
    expect(Math.abs(m.mean)).toBeLessThan(0.03);
    expect(Math.abs(m.variance - 1)).toBeLessThan(0.05);
  });

  it.each([
    [0.5, 2],
    [3, 0.5],
    [40, 4],
  ])("Gamma(%f, %f) draws have mean shape/rate and variance shape/rate^2", (shape, rate) => {
    const rng = seedrandom(`gamma:${shape}`);
    const m = moments(() => sampleGamma(rng, shape, rate), 20_000);
    expect(m.mean).toBeCloseTo(shape / rate, 1);
    expect(Math.abs(m.variance / (shape / rate ** 2) - 1)).toBeLessThan(0.08);
  });

  it("gives 0 for a degenerate shape or rate instead of looping", () => {
    const rng = seedrandom("degenerate");
    expect(sampleGamma(rng, 0, 1)).toBe(0);
    expect(sampleGamma(rng, Number.NaN, 1)).toBe(0);
    expect(sampleGamma(rng, 1e12, 1e12)).toBe(1);
  });
});
