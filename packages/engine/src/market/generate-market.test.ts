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
});
