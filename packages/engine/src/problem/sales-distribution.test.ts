import { describe, expect, it } from "vitest";
import {
  approxExpectedSales,
  approxExpectedSalesTable,
  BERNOULLI,
  demandPmf,
  expectedCapped,
  expectedDemand,
  expectedSales,
  negativeBinomial,
  POISSON,
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
      const { first, probs } = demandPmf(POISSON, rate);
      // Rounding in exp(k ln(rate) - rate - ln k!) for large k, more than the truncation, limits the precision.
      expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      expect(expectedCapped({ first, probs }, Number.POSITIVE_INFINITY) / rate).toBeCloseTo(1, 9);
      if (rate > 1000) expect(first).toBeGreaterThan(0);
    }
    expect(demandPmf(POISSON, 0).probs).toEqual(Float64Array.of(1));
  });

  it("gives Bernoulli demand one unit with probability min(rate, 1)", () => {
    expect([...demandPmf(BERNOULLI, 0.3).probs]).toEqual([0.7, 0.3]);
    expect([...demandPmf(BERNOULLI, 2).probs]).toEqual([0, 1]);
    expect(expectedDemand(BERNOULLI, 2)).toBe(1);
    expect(expectedSales(BERNOULLI, 0.3, 0.5)).toBeCloseTo(0.15, 12);
  });

  it("caps expected sales by the stock, whole, fractional or unlimited", () => {
    for (const rate of [0.4, 6, 55]) {
      for (const stock of [0, 1, 2.5, Math.floor(rate), rate + 3, 1000]) {
        const exact = bruteForce(rate, stock);
        expect(expectedCapped(demandPmf(POISSON, rate), stock)).toBeCloseTo(exact, 10);
        expect(expectedSales(POISSON, rate, stock)).toBeCloseTo(exact, 10);
      }
    }
  });

  it("approximates capped sales closely enough for the network's inputs", () => {
    for (const rate of [3, 40, 250]) {
      for (const stock of [1, Math.round(rate / 2), Math.round(rate), Math.round(rate * 1.2)]) {
        const exact = expectedSales(POISSON, rate, stock);
        expect(Math.abs(approxExpectedSales(POISSON, rate, stock) - exact)).toBeLessThan(2e-3 * rate);
      }
    }
  });

  it("gives the negative binomial its NB2 mean and variance, keeping all but a negligible mass", () => {
    for (const [rate, alpha] of [
      [0.3, 0.5],
      [4, 0.2],
      [40, 0.05],
      [50, 2],
      [900, 0.01],
    ] as const) {
      const pmf = demandPmf(negativeBinomial(alpha), rate);
      let total = 0;
      let mean = 0;
      let square = 0;
      pmf.probs.forEach((p, j) => {
        const k = pmf.first + j;
        total += p;
        mean += p * k;
        square += p * k * k;
      });
      expect(total).toBeCloseTo(1, 12);
      expect(mean / rate).toBeCloseTo(1, 9);
      expect((square - mean * mean) / (rate + alpha * rate * rate)).toBeCloseTo(1, 6);
    }
  });

  it("matches the negative binomial's closed form P(0) = (1 + alpha rate)^(-1 / alpha) and is Poisson at alpha 0", () => {
    const pmf = demandPmf(negativeBinomial(0.5), 3);
    expect(pmf.first).toBe(0);
    expect(pmf.probs[0]).toBeCloseTo((1 + 0.5 * 3) ** -2, 14);
    expect(negativeBinomial(0)).toBe(POISSON);
    expect([...demandPmf(negativeBinomial(0), 7.5).probs]).toEqual([...demandPmf(POISSON, 7.5).probs]);
  });

  it("caps negative binomial sales by the stock, exactly and approximately", () => {
    for (const [rate, alpha] of [
      [3, 0.4],
      [40, 0.1],
      [250, 0.02],
    ] as const) {
      const law = negativeBinomial(alpha);
      const pmf = demandPmf(law, rate);
      for (const stock of [1, Math.round(rate / 2), Math.round(rate), Math.round(rate * 1.5)]) {
        let exact = 0;
        pmf.probs.forEach((p, j) => {
          exact += p * Math.min(pmf.first + j, stock);
        });
        expect(expectedSales(law, rate, stock)).toBeCloseTo(exact, 10);
        expect(Math.abs(approxExpectedSales(law, rate, stock) - exact)).toBeLessThan(5e-3 * rate);
      }
    }
  });
});

describe("approxExpectedSalesTable", () => {
  it("is approxExpectedSales at every whole stock, bit for bit", () => {
    const laws = [POISSON, negativeBinomial(0.3), BERNOULLI];
    for (const law of laws) {
      for (const rate of [0, 0.05, 0.7, 3, 12.5, 60, 150]) {
        const table = approxExpectedSalesTable(law, rate, 400);
        for (let s = 0; s <= 400; s++) expect(table[s]).toBe(approxExpectedSales(law, rate, s));
      }
    }
  });
});
