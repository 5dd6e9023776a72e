import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { BERNOULLI, demandPmf, negativeBinomial, POISSON } from "../problem/sales-distribution.js";
import { unitsInterval } from "./online-learner.js";
import { matchedBand, mixtureBand } from "./units-band.js";

/** The band by its definition: every rate's pmf, mixed equally, min(D, stock) at a whole stock. */
function bandFromPmfs(law: Parameters<typeof demandPmf>[0], rates: readonly number[], stock: number) {
  const mass: number[] = [];
  for (const rate of rates) {
    const pmf = demandPmf(law, rate);
    pmf.probs.forEach((p, j) => {
      const units = Math.min(stock, pmf.first + j);
      mass[units] = (mass[units] ?? 0) + p / rates.length;
    });
  }
  return unitsInterval(mass);
}

describe("the band of a mixture of rates, without a pmf per rate", () => {
  const rng = seedrandom("units-band");
  const cases = Array.from({ length: 60 }, (_, i) => {
    const scale = [0.3, 3, 25, 140][i % 4] ?? 1;
    const rates = Array.from({ length: 48 }, () => (i % 7 === 0 && rng() < 0.1 ? 0 : scale * (0.4 + rng())));
    const law = i % 3 === 0 ? POISSON : negativeBinomial([0.05, 0.4, 2.5][i % 3] ?? 0.4);
    const stock = [Number.POSITIVE_INFINITY, Math.round(scale * 1.1), Math.round(scale * 3) + 1][i % 3] ?? 1;
    return { rates, law, stock };
  });

  it("gives the pmfs' p10, p90 and expected units", () => {
    for (const { rates, law, stock } of cases) {
      const band = mixtureBand(law, Float64Array.from(rates), rates.length, stock);
      const reference = bandFromPmfs(law, rates, stock);
      expect(band).not.toBeNull();
      expect(band?.unitsP10).toBe(reference.unitsP10);
      expect(band?.unitsP90).toBe(reference.unitsP90);
      expect(band?.expectedUnits).toBe(reference.expectedUnits);
    }
  });

  it("leaves Bernoulli demand and rates whose first term underflows to the pmfs", () => {
    expect(mixtureBand(BERNOULLI, Float64Array.of(0.5), 1, 3)).toBeNull();
    expect(mixtureBand(POISSON, Float64Array.of(900), 1, Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe("the band of the negative binomial matched to a mixture's moments", () => {
  it("is the law's own band where every rate is the same", () => {
    for (const law of [POISSON, negativeBinomial(0.4)])
      for (const stock of [Number.POSITIVE_INFINITY, 4, 30]) {
        const rates = new Float64Array(48).fill(7.5);
        expect(matchedBand(law, rates, rates.length, stock)).toEqual(
          mixtureBand(law, Float64Array.of(7.5), 1, stock),
        );
      }
  });

  it("widens the band with the rates' spread and keeps the mixture's mean", () => {
    const rng = seedrandom("matched-band");
    const rates = Float64Array.from({ length: 48 }, () => 20 * (0.4 + rng()));
    const law = negativeBinomial(0.1);
    const matched = matchedBand(law, rates, rates.length, Number.POSITIVE_INFINITY);
    const mixture = mixtureBand(law, rates, rates.length, Number.POSITIVE_INFINITY);
    const single = mixtureBand(
      law,
      Float64Array.of(rates.reduce((a, b) => a + b, 0) / 48),
      1,
      Number.POSITIVE_INFINITY,
    );
    expect(matched?.expectedUnits).toBeCloseTo(mixture?.expectedUnits ?? Number.NaN, 3);
    expect((matched?.unitsP90 ?? 0) - (matched?.unitsP10 ?? 0)).toBeGreaterThan(
      (single?.unitsP90 ?? 0) - (single?.unitsP10 ?? 0),
    );
    expect(Math.abs((matched?.unitsP10 ?? 0) - (mixture?.unitsP10 ?? 0))).toBeLessThanOrEqual(1);
    expect(Math.abs((matched?.unitsP90 ?? 0) - (mixture?.unitsP90 ?? 0))).toBeLessThanOrEqual(1);
  });

  it("leaves Bernoulli demand to the pmfs", () => {
    expect(matchedBand(BERNOULLI, Float64Array.of(0.5), 1, 3)).toBeNull();
  });
});
