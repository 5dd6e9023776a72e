import { describe, expect, it } from "vitest";
import { addDays } from "../base/calendar.js";
import type { ActivePolicy } from "../plan/company-plan.js";
import { type CatalogProduct, productState } from "../plan/product-state.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import type { SalesRow } from "../sales/sales-row.js";
import { capToExploration, planWithLearning } from "./learning-plan.js";

const TODAY = "2026-03-10";
const product: CatalogProduct = {
  product_id: "sku",
  currency: "EUR",
  base_price: 20,
  unit_cost: 5,
  min_price: 10,
  max_price: 40,
  max_daily_change: null,
  stock: null,
  season_end: null,
  updated_at: "2026-01-01T00:00:00.000Z",
};

/** Eight weeks at 19, 20 and 21 in turn, about 10 a day. */
function history(): SalesRow[] {
  return Array.from({ length: 56 }, (_, d) => ({
    date: addDays(TODAY, d - 56),
    product_id: "sku",
    price: [19, 20, 21][Math.floor(d / 7) % 3] ?? 20,
    units_sold: 8 + (d % 5),
    stock_on_hand: null,
  }));
}

/**
 * A policy that always charges `price` (the plan's view of a trained network): what a model fitted on a narrow
 * history does when it extrapolates far outside it.
 */
function fixedPolicy(price: number): ActivePolicy {
  const policy = {
    startDate: TODAY,
    findProduct: (id: string) => (id === "sku" ? 0 : undefined),
    horizonOf: () => 60,
    priceStates: (batch: { product: Int32Array }) => new Int32Array(batch.product.length),
    priceAt: () => price,
    expectedUnits: () => 3,
  } as unknown as RlPolicy;
  return { source: "approved", modelId: "mdl_test", policy };
}

function plan(active: ActivePolicy, exploration: "off" | "cautious" | "free", rows = history()) {
  return planWithLearning({
    today: TODAY,
    startDate: TODAY,
    endDate: addDays(TODAY, 13),
    products: [productState(product, rows, TODAY, { horizonDays: 30 })],
    active,
    history: rows,
    exploration,
    seed: "test",
    online: false,
  });
}

describe("the jump guard", () => {
  const state = productState(product, history(), TODAY, { horizonDays: 30 });
  const days = new Map([
    [19, 21],
    [20, 21],
    [21, 14],
  ]);

  const grid = state.setup.prices;
  // The catalogue grid's prices nearest the observed range, inside it and one step outside it.
  const top = grid.findLast((p) => p <= 21) ?? Number.NaN;
  const bottom = grid.find((p) => p >= 19) ?? Number.NaN;
  const above = grid.find((p) => p > top) ?? Number.NaN;
  const below = grid.findLast((p) => p < bottom) ?? Number.NaN;

  it("keeps off inside the prices sold at, cautious one grid price beyond those held a week, free anywhere", () => {
    expect(capToExploration(state, "off", days, 36)).toBe(top);
    expect(capToExploration(state, "off", days, 12)).toBe(bottom);
    expect(capToExploration(state, "off", days, 20.5)).toBe(20.5);
    expect(capToExploration(state, "cautious", days, 36)).toBe(above);
    expect(capToExploration(state, "cautious", days, 12)).toBe(below);
    expect(capToExploration(state, "free", days, 36)).toBe(36);
  });

  it("never binds tighter than the rule the policy replaces", () => {
    expect(capToExploration(state, "off", days, 36, 30)).toBe(30);
    expect(capToExploration(state, "off", days, 12, 15)).toBe(15);
    expect(capToExploration(state, "off", days, 36, 20)).toBe(top);
  });

  it("starts at the base price without history", () => {
    expect(capToExploration(state, "off", new Map(), 36)).toBe(20);
    expect(capToExploration(state, "off", new Map(), 11)).toBe(20);
  });

  it("caps a policy that jumps far outside the observed range in the plan, and flags what leaves it", () => {
    const off = plan(fixedPolicy(36), "off");
    expect(off.every((r) => r.price === top && r.exploratory === false && r.source === "approved")).toBe(
      true,
    );
    const cautious = plan(fixedPolicy(36), "cautious");
    expect(cautious.every((r) => r.price === above && r.exploratory === above > 21)).toBe(true);
    const free = plan(fixedPolicy(36), "free");
    expect(free.every((r) => r.price === 36 && r.exploratory === true)).toBe(true);
    // A price inside the range is the policy's own, not exploratory.
    const inside = plan(fixedPolicy(20), "cautious");
    expect(inside.every((r) => r.price === 20 && r.exploratory === false)).toBe(true);
  });

  it("leaves the rule alone (the fallback and the kill switch)", () => {
    const rule = plan({ source: "rule", modelId: null, policy: null }, "off");
    expect(rule.every((r) => r.price === r.rule_price && r.exploratory === false)).toBe(true);
  });
});

describe("every row's band", () => {
  it("brackets the expected units, from the fit with history and from the daily volume without", () => {
    for (const rows of [history(), []]) {
      for (const r of plan(fixedPolicy(20), "cautious", rows)) {
        expect(r.expected_units_p10).toBeLessThanOrEqual(r.expected_units);
        expect(r.expected_units_p90).toBeGreaterThanOrEqual(r.expected_units);
      }
    }
    const rows = plan(fixedPolicy(20), "cautious");
    // About 10 a day: a Poisson band is several units wide.
    expect(rows.every((r) => (r.expected_units_p90 ?? 0) - (r.expected_units_p10 ?? 0) >= 3)).toBe(true);
  });

  it("stays centred on a large mean (a best seller, the rate well known)", () => {
    // About 1,000 a day, steadier than Poisson (no over-dispersion to widen the band).
    const rows = history().map((r) => ({ ...r, units_sold: r.units_sold + 990 }));
    for (const r of plan({ source: "rule", modelId: null, policy: null }, "cautious", rows)) {
      expect(r.expected_units).toBeGreaterThan(500);
      expect(r.expected_units_p10).toBeGreaterThan(0.8 * r.expected_units);
      expect(r.expected_units_p90).toBeLessThan(1.2 * r.expected_units);
    }
  });

  it("never exceeds the stock left", () => {
    const rows = history();
    const scarce = {
      ...product,
      stock: 3,
      season_end: addDays(TODAY, 20),
      updated_at: `${TODAY}T00:00:00.000Z`,
    };
    const planned = planWithLearning({
      today: TODAY,
      startDate: TODAY,
      endDate: addDays(TODAY, 5),
      products: [productState(scarce, rows, TODAY, { horizonDays: 30 })],
      active: fixedPolicy(20),
      history: rows,
      exploration: "cautious",
      seed: "test",
      online: false,
    });
    expect(planned[0]?.expected_units_p90).toBeLessThanOrEqual(3);
    expect(planned.every((r) => (r.expected_units_p90 ?? 0) <= 3)).toBe(true);
  });

  it("is the same for the same seed", () => {
    expect(plan(fixedPolicy(20), "cautious")).toEqual(plan(fixedPolicy(20), "cautious"));
  });
});

describe("the online learner without a trained model", () => {
  const RULE: ActivePolicy = { source: "rule", modelId: null, policy: null };
  const learn = (rows: SalesRow[], online = true) =>
    planWithLearning({
      today: TODAY,
      startDate: TODAY,
      endDate: addDays(TODAY, 6),
      products: [productState(product, rows, TODAY, { horizonDays: 30 })],
      active: RULE,
      history: rows,
      exploration: "cautious",
      seed: "test",
      online,
    });

  it("prices from the history the rule sold (the minimum history is the network's), rows sourced rule", () => {
    const rows = learn(history());
    const rule = learn(history(), false);
    // The learner's own prices: not the rule's every day.
    expect(rows.some((r, i) => r.price !== rule[i]?.price)).toBe(true);
    for (const r of rows) {
      expect(r.source).toBe("rule");
      expect(r.model_id).toBeNull();
      expect(typeof r.exploratory).toBe("boolean");
      // Cautious: at most one catalogue step beyond the prices sold at (19-21).
      expect(r.price).toBeGreaterThanOrEqual(18);
      expect(r.price).toBeLessThanOrEqual(22);
    }
  });

  it("starts from the rule with no history at all", () => {
    const rows = learn([]);
    expect(rows.every((r) => r.price === r.rule_price && r.source === "rule")).toBe(true);
  });
});
