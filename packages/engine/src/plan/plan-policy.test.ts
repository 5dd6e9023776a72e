import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addDays } from "../base/calendar.js";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import { trainPolicy } from "../policy/fitted-q.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import { trainingDataFromProblems } from "../policy/training-input.js";
import { nearestAllowedIndex } from "../problem/action-range.js";
import type { PricingProblem } from "../problem/pricing-problem.js";
import { buildProblem } from "../problem/problem-setup.js";
import { type ActivePolicy, planPrices } from "./company-plan.js";
import { planPolicy } from "./plan-policy.js";
import { type ProductState, productState } from "./product-state.js";

const TODAY = "2026-03-10";
const state = productState(
  {
    product_id: "tea",
    currency: "EUR",
    base_price: 4,
    unit_cost: 1,
    min_price: null,
    max_price: null,
    max_daily_change: 0.1,
    stock: 30,
    season_end: "2026-03-19",
    updated_at: "2026-01-01T00:00:00.000Z",
  },
  [
    { date: "2026-03-08", product_id: "tea", price: 4.2, units_sold: 3, stock_on_hand: null },
    { date: "2026-03-09", product_id: "tea", price: 4, units_sold: 4, stock_on_hand: null },
  ],
  TODAY,
  { horizonDays: 30 },
);
const problem: PricingProblem = buildProblem(state.setup, (_, p) => 5 * (p / 4) ** -2.2);

let policy: RlPolicy;
beforeAll(async () => {
  policy = await trainPolicy({
    companyId: "shop",
    products: trainingDataFromProblems([problem], { tea: 4 }),
    config: { seed: 3, stepsPerDay: 8, finalSteps: 30 },
  });
});
afterAll(() => policy.dispose());

/** The first row of the plan made on day t for a state with `stock` left after `prev`. */
function firstDay(active: ActivePolicy, t: number, stock: number, prev: number): number {
  const date = addDays(TODAY, t);
  const on: ProductState = { ...state, stock, lastPrice: prev };
  const [row] = planPrices({
    today: date,
    startDate: date,
    endDate: date,
    products: [on],
    active,
    fit: () => null,
  });
  if (row === undefined) throw new Error("no plan row");
  return row.price;
}

describe("planPolicy", () => {
  it("is, for every state, the first day of the plan made that day, on the grid", () => {
    const actives: ActivePolicy[] = [
      { source: "latest", modelId: "m", policy },
      { source: "rule", modelId: null, policy: null },
    ];
    for (const active of actives) {
      const served = planPolicy({ state, problem, active });
      for (const t of [0, 3, 9]) {
        for (const stock of [0, 4, 17, 30]) {
          for (const prevIndex of [0, 12, problem.prices.length - 1]) {
            const price = firstDay(active, t, stock, problem.prices[prevIndex] ?? 0);
            expect(served(t, stock, prevIndex)).toBe(nearestAllowedIndex(problem, prevIndex, price));
            if (active.policy !== null) expect(problem.prices).toContain(price);
          }
        }
      }
    }
  });

  it("evaluates exactly with no illegal decision, the policy's batches cached per day", () => {
    const evaluate = vi.spyOn(policy, "evaluate");
    try {
      const served = planPolicy({ state, problem, active: { source: "approved", modelId: "m", policy } });
      const result = evaluatePolicy(problem, served);
      expect(result.violations).toBe(0);
      expect(result.value).toBeGreaterThan(0);
      // One batch per day from the lowest level reached, never one per state: the initial stock alone on day 0,
      // then the 31 stock levels.
      expect(evaluate.mock.calls.map(([product]) => product.length)).toEqual([
        1,
        ...Array(problem.horizon - 1).fill(31),
      ]);
    } finally {
      evaluate.mockRestore();
    }
  });
});
