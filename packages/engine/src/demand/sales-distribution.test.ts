import { describe, expect, it } from "vitest";
import {
  approxExpectedSales,
  demandPmf,
  expectedCapped,
  expectedDemand,
  expectedSales,
} from "./sales-distribution.js";

/** E[min(D, stock)] for D ~ Poisson(rate) by the plain recursion P(k + 1) = P(k) rate / (k + 1), far into the tail. */
function bruteForce(rate: number, stock: number): number {
  let p = Math.exp(-rate);
  let sum = 0;
  for (let k = 0; k < rate + 40 * Math.sqrt(rate) + 60; k++) {
    sum += p * Math.min(k, stock);
    p *= rate / (k + 1);
  }
  return sum;
}

describe("sales distribution", () => {
  it("keeps all but a negligible mass of Poisson demand, trimming both tails of large rates", () => {
    for (const rate of [0.01, 1, 7.5, 150, 4000]) {
      const { first, probs } = demandPmf("poisson", rate);
      // Rounding in exp(k ln(rate) - rate - ln k!) for large k, more than the truncation, limits the precision.
      expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      expect(expectedCapped({ first, probs }, Number.POSITIVE_INFINITY) / rate).toBeCloseTo(1, 9);
      if (rate > 1000) expect(first).toBeGreaterThan(0);
    }
    expect(demandPmf("poisson", 0).probs).toEqual(Float64Array.of(1));
  });

  it("gives Bernoulli demand one unit with probability min(rate, 1)", () => {
    expect([...demandPmf("bernoulli", 0.3).probs]).toEqual([0.7, 0.3]);
    expect([...demandPmf("bernoulli", 2).probs]).toEqual([0, 1]);
    expect(expectedDemand("bernoulli", 2)).toBe(1);
    expect(expectedSales("bernoulli", 0.3, 0.5)).toBeCloseTo(0.15, 12);
  });

  it("caps expected sales by the stock, whole, fractional or unlimited", () => {
    for (const rate of [0.4, 6, 55]) {
      for (const stock of [0, 1, 2.5, Math.floor(rate), rate + 3, 1000]) {
        const exact = bruteForce(rate, stock);
        expect(expectedCapped(demandPmf("poisson", rate), stock)).toBeCloseTo(exact, 10);
        expect(expectedSales("poisson", rate, stock)).toBeCloseTo(exact, 10);
      }
    }
  });

  it("approximates capped sales closely enough for the network's inputs", () => {
    for (const rate of [3, 40, 250]) {
      for (const stock of [1, Math.round(rate / 2), Math.round(rate), Math.round(rate * 1.2)]) {
        const exact = expectedSales("poisson", rate, stock);
        expect(Math.abs(approxExpectedSales("poisson", rate, stock) - exact)).toBeLessThan(2e-3 * rate);
      }
    }
  });
});
