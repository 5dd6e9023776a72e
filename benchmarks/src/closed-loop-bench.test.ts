import { generateMarket, type ScenarioInput } from "@pricing/engine";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { closedLoopPolicy, releaseTrained } from "./closed-loop-policies.js";
import { playSeason, type SeasonPricer, type ServedPrice } from "./closed-loop-sim.js";
import { NB_OVERDISPERSION, narrowNbSuite, narrowSuite } from "./closed-loop-suites.js";
import { meanWithCi95 } from "./confidence-interval.js";
import { observe, solvePriceLp, tsUpdateChoice, tsUpdateState } from "./ts-update.js";

const tiny: ScenarioInput = {
  name: "tiny",
  seed: 3,
  start_date: "2026-03-02",
  horizon: 20,
  history: { days: 0 },
  products: [
    {
      product_id: "a",
      reference_price: 10,
      unit_cost: 4,
      grid: [8, 9, 10, 11, 12],
      stock: 30,
      demand: { family: "constant_elasticity", base_rate: 3, elasticity: 2 },
    },
  ],
};

const fixed = (price: number | null, band?: [number, number]): SeasonPricer => ({
  priceDay: () => new Map([["a", { price, ...(band ? { p10: band[0], p90: band[1] } : {}) }]]),
});

describe("playSeason", () => {
  const market = generateMarket(tiny);

  it("sells at most the stock, grows the history by the days sold at, and is reproducible from its seed", () => {
    const seen: number[] = [];
    const pricer: SeasonPricer = {
      priceDay: (day) => {
        seen.push(day.history.length);
        expect(day.states[0]?.stock).toBe(30 - day.history.reduce((a, r) => a + r.units_sold, 0));
        return new Map([["a", { price: 8 }]]);
      },
    };
    const first = playSeason(market, pricer, 1, []);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, d) => d));
    // Margin 4 a unit, at most 30 units.
    expect(first.value).toBeLessThanOrEqual(4 * 30);
    expect(first.value % 4).toBe(0);
    expect(playSeason(market, fixed(8), 1, [])).toEqual(first);
    expect(playSeason(market, fixed(8), 2, []).value).not.toBe(Number.NaN);
  });

  it("draws the same sales for every policy on the same seed (common random numbers)", () => {
    const atTen = playSeason(market, fixed(10), 7, []);
    const again = playSeason(market, fixed(10), 7, []);
    expect(again.value).toBe(atTen.value);
  });

  it("counts prices outside the guardrails and the p10/p90 coverage", () => {
    const outside = playSeason(market, fixed(15), 1, []);
    expect(outside.violations).toBe(20);
    const wide = playSeason(market, fixed(10, [0, 1000]), 1, []);
    expect(wide).toMatchObject({ violations: 0, calibrated: 20, inside: 20 });
    expect(wide.expectedInside).toBeCloseTo(20, 9);
    const never = playSeason(market, fixed(10, [-2, -1]), 1, []);
    expect(never.inside).toBe(0);
    expect(never.expectedInside).toBe(0);
  });

  it("sums each day's exact probability of the band under the true demand, whatever the draw", () => {
    // One day at the reference price: Poisson(3), P(2 <= D <= 4) = e^-3 (9/2 + 27/6 + 81/24).
    const day = generateMarket({ ...tiny, horizon: 1 });
    const exact = Math.exp(-3) * (9 / 2 + 27 / 6 + 81 / 24);
    // The true law's own band is [1, 5]: p10 and p90 of Poisson(3) less a quarter of their mass.
    const ownBand = Math.exp(-3) * (3 + 9 / 2 + 27 / 6 + 81 / 24 + 243 / 120);
    for (const seed of [1, 2, 3]) {
      const outcome = playSeason(day, fixed(10, [2, 4]), seed, []);
      expect(outcome.expectedInside).toBeCloseTo(exact, 9);
      expect(outcome.trueLawInside).toBeCloseTo(ownBand, 9);
    }
    // Sold up to the stock: a band [0, 1] over a stock of 1 holds every day.
    const one = generateMarket({ ...tiny, horizon: 1, products: [{ ...tiny.products![0]!, stock: 1 }] });
    expect(playSeason(one, fixed(10, [0, 1]), 1, []).expectedInside).toBeCloseTo(1, 9);
  });
});

describe("meanWithCi95", () => {
  it("is the t interval of the mean", () => {
    const { mean, half } = meanWithCi95([1, 2, 3]);
    expect(mean).toBe(2);
    expect(half).toBeCloseTo(4.303 / Math.sqrt(3), 9);
    expect(meanWithCi95([5])).toEqual({ mean: 5, half: 0 });
  });
});

describe("ts_update", () => {
  const prices = [29.9, 34.9, 39.9, 44.9];
  const probs = [0.8, 0.6, 0.3, 0.1];

  it("solves Ferreira's LP: a quarter of a sale a period mixes 39.90 and 44.90 as 3 : 1", () => {
    const x = solvePriceLp(prices, probs, 0.25);
    expect(x[0]).toBeCloseTo(0, 9);
    expect(x[1]).toBeCloseTo(0, 9);
    expect(x[2]).toBeCloseTo(0.75, 9);
    expect(x[3]).toBeCloseTo(0.25, 9);
    // Unconstrained: the largest revenue, 29.90.
    expect(solvePriceLp(prices, probs, Number.POSITIVE_INFINITY)).toEqual([1, 0, 0, 0]);
  });

  it("with concentrated posteriors draws prices with the LP's probabilities", () => {
    const state = tsUpdateState(prices, "bernoulli");
    prices.forEach((_, i) => {
      for (let k = 0; k < 20_000; k++) observe(state, i, k < (probs[i] ?? 0) * 20_000 ? 1 : 0);
    });
    const rng = seedrandom("ts");
    const counts = [0, 0, 0, 0];
    for (let k = 0; k < 2000; k++) {
      const i = tsUpdateChoice(state, rng, 0, 25, 100, true);
      if (i >= 0) counts[i] = (counts[i] ?? 0) + 1;
    }
    expect((counts[2] ?? 0) / 2000).toBeGreaterThan(0.7);
    expect((counts[2] ?? 0) / 2000).toBeLessThan(0.8);
    expect((counts[3] ?? 0) / 2000).toBeGreaterThan(0.2);
  });
});

describe("closed_loop", () => {
  it("prices through runPlanJob from no history: the rule first, then the learner with its band, on the price list", async () => {
    const market = generateMarket({ ...tiny, horizon: 10 });
    const policy = closedLoopPolicy();
    await policy.prepare?.(market, [], true);
    const seen: ServedPrice[] = [];
    const pricer = policy.season(market, 1);
    const outcome = playSeason(
      market,
      {
        priceDay: (day) => {
          const served = pricer.priceDay(day);
          const a = served.get("a");
          if (a !== undefined) seen.push(a);
          return served;
        },
      },
      1,
      [],
    );
    await releaseTrained(market);
    expect(outcome.violations).toBe(0);
    // Day one has no sales: the rule at the reference price. From day two the learner prices, always one of the
    // market's own prices; every day carries the band the API serves.
    expect(seen[0]?.price).toBe(10);
    for (const s of seen) {
      expect(s.p10).toBeDefined();
      expect([8, 9, 10, 11, 12]).toContain(s.price);
    }
    expect(outcome.calibrated).toBe(10);
  });
});

describe("narrowNbSuite", () => {
  it("plays each narrow-history market again with NB2 noise, its history as over-dispersed as its season", () => {
    const nb = narrowNbSuite(true);
    const plain = narrowSuite(true);
    expect(nb.map((s) => s.scenario.name)).toEqual(plain.map((s) => `${s.scenario.name}-nb`));
    for (const { scenario } of nb) {
      expect(scenario.distribution).toBe("negative_binomial");
      for (const p of scenario.products ?? []) expect(p.demand.overdispersion).toBe(NB_OVERDISPERSION);
    }
    const variance = (xs: readonly number[]) => {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length;
    };
    const units = (s: ScenarioInput) => generateMarket(s).history.map((r) => r.units_sold);
    const [first] = nb;
    const [firstPlain] = plain;
    if (first === undefined || firstPlain === undefined) throw new Error("empty suite");
    // About 8 a day: Poisson variance ~8 (plus the prices' and weekdays' spread), NB2 at 0.15 adds ~10.
    expect(variance(units(first.scenario))).toBeGreaterThan(1.5 * variance(units(firstPlain.scenario)));
  });
});
