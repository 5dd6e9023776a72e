import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import { allowedRange } from "../problem/action-range.js";
import { buildProblem } from "../problem/problem-setup.js";
import type { SalesRow } from "../sales/sales-row.js";
import { rulePolicy } from "./rule-policy.js";
import { ruleParamsFromHistory, rulePrice } from "./rule-price.js";

const guard = { minPrice: 8, maxPrice: 30 };
const week = [1, 1, 1, 1, 1, 1, 1];

describe("rulePrice", () => {
  it("with no history is the base price, clamped to the guardrails", () => {
    const params = ruleParamsFromHistory([], "a", 40);
    expect(params.dailyUnits).toBeNull();
    expect(rulePrice(params, { weekday: 5, stockLeft: 1, remainingWeekdayCounts: week }, guard)).toBe(30);
    expect(
      rulePrice(
        { ...params, basePrice: 12 },
        { weekday: 2, stockLeft: null, remainingWeekdayCounts: week },
        guard,
      ),
    ).toBe(12);
  });

  it("follows the weekday index seen in history and raises the price when stock runs short", () => {
    // Saturdays (2026-01-03, ...) sell twice as much as other days.
    const rows: SalesRow[] = Array.from({ length: 28 }, (_, i) => {
      const date = new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
      const saturday = new Date(`${date}T00:00:00Z`).getUTCDay() === 6;
      return { date, product_id: "a", price: 10, units_sold: saturday ? 16 : 8, stock_on_hand: null };
    });
    const params = ruleParamsFromHistory(rows, "a", 10);
    expect(params.weekdayIndex[5]! / params.weekdayIndex[0]!).toBeCloseTo(2, 10);
    const state = { stockLeft: null, remainingWeekdayCounts: week };
    expect(rulePrice(params, { ...state, weekday: 5 }, guard)).toBeGreaterThan(
      rulePrice(params, { ...state, weekday: 0 }, guard),
    );
    const plenty = rulePrice(params, { weekday: 0, stockLeft: 1000, remainingWeekdayCounts: week }, guard);
    const short = rulePrice(params, { weekday: 0, stockLeft: 20, remainingWeekdayCounts: week }, guard);
    expect(short).toBeGreaterThan(plenty);
  });
});

describe("property: the rule's prices lie in the guardrails and respect the max daily change", () => {
  it("holds on random problems, histories and states", () => {
    fc.assert(
      fc.property(
        fc.record({
          base: fc.double({ min: 1, max: 100, noNaN: true }),
          daily: fc.option(fc.double({ min: 0, max: 50, noNaN: true }), { nil: null }),
          weekday: fc.array(fc.double({ min: 0, max: 3, noNaN: true }), { minLength: 7, maxLength: 7 }),
          stock: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
          limit: fc.option(fc.constantFrom(0.05, 0.1, 0.3), { nil: null }),
          horizon: fc.integer({ min: 1, max: 15 }),
        }),
        (g) => {
          const prices = Array.from({ length: 25 }, (_, i) => Math.round(10 * 1.04 ** i * 100) / 100);
          const problem = buildProblem(
            {
              productId: "a",
              startDate: "2026-03-02",
              horizon: g.horizon,
              prices,
              minPrice: prices[0]!,
              maxPrice: prices[24]!,
              shutoff: false,
              unitCost: 2,
              stock: g.stock,
              maxDailyChange: g.limit,
              initialPrice: g.limit === null ? null : 16,
              distribution: "poisson",
              overdispersion: 0,
            },
            (_d, p) => 5 * (p / 16) ** -2,
          );
          const params = { basePrice: g.base, weekdayIndex: g.weekday, dailyUnits: g.daily };
          const policy = rulePolicy(problem, params);
          expect(evaluatePolicy(problem, policy).violations).toBe(0);
          for (let t = 0; t < g.horizon; t++) {
            for (const stock of [0, 1, 7, 60, Number.POSITIVE_INFINITY]) {
              for (const prev of [-1, 0, 12, 24]) {
                const a = policy(t, stock, prev);
                const { lo, hi } = allowedRange(problem, prev);
                expect(a).toBeGreaterThanOrEqual(lo);
                expect(a).toBeLessThanOrEqual(hi);
              }
            }
          }
          const price = rulePrice(
            params,
            { weekday: 3, stockLeft: g.stock, remainingWeekdayCounts: week },
            guard,
          );
          expect(price).toBeGreaterThanOrEqual(guard.minPrice);
          expect(price).toBeLessThanOrEqual(guard.maxPrice);
        },
      ),
      { numRuns: 100, seed: 7 },
    );
  });
});
