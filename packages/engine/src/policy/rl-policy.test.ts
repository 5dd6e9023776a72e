import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tensorCount } from "../backend/tf-backend.js";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import { buildProblem, type ProblemSetup } from "../problem/problem-setup.js";
import { trainPolicy } from "./fitted-q.js";
import type { RlPolicy } from "./rl-policy.js";
import { trainingDataFromProblems } from "./training-input.js";

// Two products on different grids (one with a 10 % max daily change), one unlimited.
const setups: ProblemSetup[] = [
  {
    productId: "tea",
    startDate: "2026-04-06",
    horizon: 12,
    prices: [2.5, 2.75, 3, 3.3, 3.6, 3.95, 4.3, 4.7, 5.15, 5.6],
    minPrice: 2.5,
    maxPrice: 5.6,
    shutoff: false,
    unitCost: 1,
    stock: 40,
    maxDailyChange: 0.1,
    initialPrice: 4,
    distribution: "poisson",
  },
  {
    productId: "mug",
    startDate: "2026-04-06",
    horizon: 12,
    prices: [10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40],
    minPrice: 10,
    maxPrice: 40,
    shutoff: false,
    unitCost: 8,
    stock: null,
    maxDailyChange: null,
    initialPrice: null,
    distribution: "poisson",
  },
];
const problems = [
  buildProblem(setups[0]!, (_, p) => 6 * (p / 4) ** -2.5),
  buildProblem(setups[1]!, (d, p) => 2 * Math.exp(-1.5 * (p / 20 - 1)) * (d % 7 === 5 ? 1.5 : 1)),
];

let policy: RlPolicy;
beforeAll(async () => {
  policy = await trainPolicy({
    companyId: "shop",
    products: trainingDataFromProblems(problems, { tea: 4, mug: 20 }),
    config: { seed: 2, stepsPerDay: 10, finalSteps: 50 },
  });
});
afterAll(() => policy.dispose());

describe("RL policy inference", () => {
  it("plans every product and date of a range, rolling stock forward by expected sales", () => {
    const plan = policy.recommend(
      {
        today: "2026-04-07",
        products: [
          { productId: "tea", stock: 30, lastPrice: 4 },
          { productId: "mug", stock: null, lastPrice: null },
        ],
      },
      { startDate: "2026-04-08", endDate: "2026-04-10" },
    );
    expect(plan.map((r) => `${r.date} ${r.productId}`)).toEqual([
      "2026-04-08 mug",
      "2026-04-08 tea",
      "2026-04-09 mug",
      "2026-04-09 tea",
      "2026-04-10 mug",
      "2026-04-10 tea",
    ]);
    const tea = plan.filter((r) => r.productId === "tea");
    // Stock on the 8th is what is left after the 7th's expected sales.
    expect(tea[0]!.stockBefore).toBeLessThan(30);
    expect(tea[1]!.stockBefore).toBeCloseTo(tea[0]!.stockBefore - tea[0]!.expectedUnits, 9);
    for (const r of plan) expect(r.expectedRevenue).toBeCloseTo(r.expectedUnits * r.price!, 9);
    expect(
      plan.filter((r) => r.productId === "mug").every((r) => r.stockBefore === Number.POSITIVE_INFINITY),
    ).toBe(true);
  });

  it("leaks no tensors", () => {
    const before = tensorCount();
    policy.recommend({ today: "2026-04-06", products: [{ productId: "tea", stock: 40, lastPrice: null }] });
    policy.priceStates({
      product: Int32Array.of(0, 1, 0),
      day: Int32Array.of(0, 5, 11),
      stock: Float64Array.of(3, Number.POSITIVE_INFINITY, 40),
      prevPrice: Float64Array.of(Number.NaN, 20, 3),
    });
    evaluatePolicy(problems[0]!, policy.productPolicy("tea"));
    expect(tensorCount()).toBe(before);
  });

  it("always prices inside the guardrails and within the max daily change (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            product: fc.integer({ min: 0, max: 1 }),
            day: fc.integer({ min: 0, max: 11 }),
            stock: fc.integer({ min: 0, max: 60 }),
            prev: fc.integer({ min: -1, max: 15 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (states) => {
          const prevPrice = states.map((s) => {
            const grid = setups[s.product]!.prices;
            return s.prev < 0 ? Number.NaN : grid[s.prev % grid.length]!;
          });
          const idx = policy.priceStates({
            product: Int32Array.from(states, (s) => s.product),
            day: Int32Array.from(states, (s) => s.day),
            stock: Float64Array.from(states, (s) => (s.product === 1 ? Number.POSITIVE_INFINITY : s.stock)),
            prevPrice: Float64Array.from(prevPrice),
          });
          states.forEach((s, r) => {
            const setup = setups[s.product]!;
            const price = setup.prices[idx[r]!]!;
            expect(price).toBeGreaterThanOrEqual(setup.minPrice);
            expect(price).toBeLessThanOrEqual(setup.maxPrice);
            if (setup.maxDailyChange !== null) {
              const prev = Number.isNaN(prevPrice[r]!) ? setup.initialPrice! : prevPrice[r]!;
              expect(Math.abs(price / prev - 1)).toBeLessThanOrEqual(setup.maxDailyChange + 1e-9);
            }
          });
        },
      ),
      { seed: 42, numRuns: 100 },
    );
    for (const p of problems) expect(evaluatePolicy(p, policy.productPolicy(p.productId)).violations).toBe(0);
  });

  it("rejects states outside the policy", () => {
    expect(() =>
      policy.recommend({ today: "2026-04-06", products: [{ productId: "nope", stock: 1, lastPrice: null }] }),
    ).toThrow(/unknown product/);
    expect(() =>
      policy.priceStates({
        product: Int32Array.of(0),
        day: Int32Array.of(12),
        stock: Float64Array.of(1),
        prevPrice: Float64Array.of(Number.NaN),
      }),
    ).toThrow(/outside the policy/);
  });
});
