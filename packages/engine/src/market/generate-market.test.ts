import { describe, expect, it } from "vitest";
import { weekdayOf } from "../base/calendar.js";
import { builtinScenarios } from "./builtin-scenarios.js";
import { generateMarket } from "./generate-market.js";
import { problemFromTruth } from "./problem-from-truth.js";
import { ScenarioSchema } from "./scenario-schema.js";
import { trueRate } from "./true-demand.js";

const base = {
  name: "m",
  seed: 5,
  start_date: "2026-03-02",
  horizon: 10,
  history: { days: 60, price_variation: 0.1, change_every_days: 7 },
};

describe("generateMarket", () => {
  it("is identical for the same seed and differs for another", () => {
    const scenario = builtinScenarios({ quick: true })[1]!;
    const a = generateMarket(scenario);
    const b = generateMarket(scenario);
    expect(JSON.stringify(a.history)).toBe(JSON.stringify(b.history));
    expect(a.products[0]!.setup).toEqual(b.products[0]!.setup);
    const c = generateMarket({ ...scenario, seed: 999 });
    expect(JSON.stringify(c.history)).not.toBe(JSON.stringify(a.history));
  });

  it("writes daily rows before the start date with prices changing weekly around the reference", () => {
    const m = generateMarket({
      ...base,
      products: [{ product_id: "a", reference_price: 10, demand: { family: "exponential", base_rate: 4 } }],
    });
    expect(m.history).toHaveLength(60);
    expect(m.history[0]!.date).toBe("2026-01-01");
    expect(m.history[59]!.date).toBe("2026-03-01");
    for (const r of m.history) {
      expect(r.price).toBeGreaterThanOrEqual(9);
      expect(r.price).toBeLessThanOrEqual(11);
      expect(Number.isInteger(r.units_sold)).toBe(true);
    }
    expect(m.history[0]!.price).toBe(m.history[6]!.price);
    expect(new Set(m.history.map((r) => r.price)).size).toBeGreaterThan(3);
  });

  it("sizes stock from stock_ratio and applies each demand family", () => {
    const weekday = [1, 1, 1, 1, 1, 2, 1];
    const m = generateMarket({
      ...base,
      products: [
        {
          product_id: "t",
          reference_price: 10,
          grid: [8, 10, 12],
          stock_ratio: 0.5,
          demand: { family: "table", table: [6, 4, 1], weekday, day_multipliers: [1, 3] },
        },
        { product_id: "l", reference_price: 10, demand: { family: "linear", base_rate: 4, elasticity: 2 } },
      ],
    });
    const t = m.products[0]!;
    let expected = 0;
    for (let d = 0; d < 10; d++) expected += 4 * (d === 1 ? 3 : 1) * (d === 5 ? 2 : 1);
    expect(weekdayOf("2026-03-07")).toBe(5);
    expect(t.setup.stock).toBe(Math.round(0.5 * expected));
    expect(trueRate(t.truth, 0, -1, 11)).toBeCloseTo(2.5, 10);
    const problem = problemFromTruth(t.truth, t.setup);
    expect(problem.rate(1, 0)).toBeCloseTo(18, 10);
    const l = m.products[1]!;
    expect(trueRate(l.truth, 0, 0, 15)).toBe(0);
    expect(trueRate(l.truth, 0, 0, 12)).toBeCloseTo(4 * 0.6, 10);
  });

  it("draws a reproducible company with distinct ids", () => {
    const m = generateMarket({ ...base, company: { count: 12, stock_ratio: [0.5, 1] } });
    expect(new Set(m.products.map((p) => p.productId)).size).toBe(12);
    expect(m.products[0]!.productId).toBe("p01");
    expect(m.history).toHaveLength(12 * 60);
    for (const p of m.products) expect(p.setup.stock).not.toBeNull();
  });

  it("rejects bad scenarios with a message naming the field", () => {
    const bad = ScenarioSchema.safeParse({ ...base, horizon: 0, products: [] });
    expect(bad.success).toBe(false);
    expect(() => generateMarket({ ...base })).toThrow(/products/);
    expect(() =>
      generateMarket({
        ...base,
        products: [
          { product_id: "t", reference_price: 10, grid: [8, 10], demand: { family: "table", table: [1] } },
        ],
      }),
    ).toThrow(/one rate per grid price/);
  });

  it("builds the built-in suite of at least 7 scenarios", () => {
    const suite = builtinScenarios();
    expect(suite.length).toBeGreaterThanOrEqual(7);
    for (const s of suite) expect(ScenarioSchema.safeParse(s).success).toBe(true);
  });

  it("draws negative binomial days with each product's over-dispersion", () => {
    const m = generateMarket({
      ...base,
      distribution: "negative_binomial",
      history: { days: 4000, price_variation: 0 },
      products: [
        {
          product_id: "nb",
          reference_price: 10,
          demand: { family: "exponential", base_rate: 6, overdispersion: 0.5 },
        },
        { product_id: "flat", reference_price: 10, demand: { family: "exponential", base_rate: 6 } },
      ],
    });
    expect(m.products[0]!.setup).toMatchObject({ distribution: "negative_binomial", overdispersion: 0.5 });
    expect(m.products[1]!.setup).toMatchObject({ distribution: "poisson", overdispersion: 0 });
    const moments = (id: string) => {
      const units = m.history.filter((r) => r.product_id === id).map((r) => r.units_sold);
      const mean = units.reduce((a, b) => a + b, 0) / units.length;
      const variance = units.reduce((a, u) => a + (u - mean) ** 2, 0) / (units.length - 1);
      return { mean, variance };
    };
    const nb = moments("nb");
    expect(nb.mean).toBeGreaterThan(5.6);
    expect(nb.mean).toBeLessThan(6.4);
    // Variance 6 + 0.5 x 36 = 24 (Poisson: 6).
    expect(nb.variance).toBeGreaterThan(20);
    expect(nb.variance).toBeLessThan(28);
    expect(moments("flat").variance).toBeLessThan(7);
  });

  it("follows a price path, a level path and promoted days through the history and the horizon", () => {
    const days = 60;
    const pricePath = Array.from({ length: days }, (_, d) => (d < 30 ? 1 : 0.8));
    const level = Array.from({ length: days }, (_, d) => 1 + d / 60);
    const m = generateMarket({
      ...base,
      history: { days, promoted_share: 0.25, price_path: pricePath },
      products: [
        {
          product_id: "a",
          reference_price: 10,
          demand: {
            family: "constant_elasticity",
            base_rate: 5,
            elasticity: 2,
            history_multipliers: level,
            day_multipliers: [3],
            promotion_lift: 1.5,
          },
        },
      ],
    });
    const rows = m.history;
    expect(rows.map((r) => r.price)).toEqual(pricePath.map((x) => 10 * x));
    const promoted = rows.filter((r) => r.promoted === 1).length;
    expect(promoted).toBeGreaterThan(5);
    expect(promoted).toBeLessThan(25);
    expect(rows.every((r) => r.promoted === 0 || r.promoted === 1)).toBe(true);
    const truth = m.products[0]!.truth;
    // The last history day (horizon day -1) carries the last level, promoted at 1.5 x; the first horizon day its own.
    expect(trueRate(truth, 0, -1, 10, 1)).toBeCloseTo(5 * level[days - 1]! * 1.5, 10);
    expect(trueRate(truth, 0, -days, 8)).toBeCloseTo(5 * 1.5625, 10);
    expect(trueRate(truth, 0, 0, 10)).toBeCloseTo(15, 10);
  });

  it("keeps the draws of a market without the new keys and rejects paths of the wrong length", () => {
    const scenario = builtinScenarios({ quick: true })[1]!;
    const plain = generateMarket(scenario);
    expect(plain.history.some((r) => "promoted" in r)).toBe(false);
    const product = {
      product_id: "a",
      reference_price: 10,
      demand: { family: "exponential" as const, base_rate: 4, history_multipliers: [1, 2] },
    };
    expect(() => generateMarket({ ...base, products: [product] })).toThrow(
      /history_multipliers has 2 values, one per history day \(60\)/,
    );
    expect(() =>
      generateMarket({
        ...base,
        history: { days: 60, price_path: [1] },
        products: [{ ...product, demand: { family: "exponential" } }],
      }),
    ).toThrow(/price_path has 1 values/);
    expect(() =>
      generateMarket({
        ...base,
        products: [{ ...product, demand: { family: "exponential", overdispersion: 0.2 } }],
      }),
    ).toThrow(/overdispersion needs distribution "negative_binomial"/);
  });
});
