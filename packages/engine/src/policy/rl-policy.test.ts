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
    overdispersion: 0,
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
    overdispersion: 0,
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
  it("decides per state as its batch does, with per-day batches cached for exact evaluation", () => {
    const decide = policy.decider(0);
    const batch = policy.priceStates({
      product: Int32Array.of(0, 0, 0),
      day: Int32Array.of(3, 3, 7),
      stock: Float64Array.of(0, 17, 40),
      prevPrice: Float64Array.of(3.3, Number.NaN, 4.3),
    });
    expect([decide(3, 0, 3.3), decide(3, 17, null), decide(7, 40, 4.3)]).toEqual([...batch]);
    // A stock level off the cached whole levels is priced on its own.
    expect(decide(3, 17.5, null)).toBeGreaterThanOrEqual(0);
    expect(policy.dayOf(0, "2026-04-06")).toBe(0);
    expect(policy.dayOf(0, "2026-04-18")).toBeUndefined();
    expect(policy.dayOf(0, "2026-04-05")).toBeUndefined();
    expect(policy.findProduct("nope")).toBeUndefined();
    expect(policy.priceAt(1, 0)).toBe(10);
    expect(policy.priceAt(1, -1)).toBeNull();
  });

  it("leaks no tensors", () => {
    const before = tensorCount();
    policy.decider(1)(4, Number.POSITIVE_INFINITY, 20);
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
    expect(() => policy.productIndex("nope")).toThrow(/unknown product/);
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
