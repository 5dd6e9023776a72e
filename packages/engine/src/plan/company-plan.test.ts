import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addDays } from "../base/calendar.js";
import { explorationAdvisor } from "../learn/learning-plan.js";
import { trainPolicy } from "../policy/fitted-q.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import { trainingDataFromProblems } from "../policy/training-input.js";
import { buildProblem } from "../problem/problem-setup.js";
import type { SalesRow } from "../sales/sales-row.js";
import { type ActivePolicy, type PlannedPrice, planPrices } from "./company-plan.js";
import { type CatalogProduct, type ProductState, productState } from "./product-state.js";

const TODAY = "2026-03-10";
const RULE: ActivePolicy = { source: "rule", modelId: null, policy: null };

const productArb = fc.record({
  base: fc.double({ min: 1, max: 500, noNaN: true }),
  lo: fc.double({ min: 0.3, max: 1, noNaN: true }),
  hi: fc.double({ min: 1, max: 3, noNaN: true }),
  change: fc.option(fc.double({ min: 0.02, max: 0.3, noNaN: true }), { nil: null }),
  stock: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
  seasonDays: fc.integer({ min: 1, max: 40 }),
  historyDays: fc.integer({ min: 0, max: 60 }),
  dailyUnits: fc.integer({ min: 0, max: 20 }),
});
type ProductCase = typeof productArb extends fc.Arbitrary<infer T> ? T : never;

function stateOf(p: ProductCase, i: number): ProductState {
  const id = `p${i}`;
  const base = Math.round(p.base * 100) / 100;
  const product: CatalogProduct = {
    product_id: id,
    currency: "EUR",
    base_price: base,
    unit_cost: null,
    min_price: Math.round(p.base * p.lo * 100) / 100,
    max_price: Math.round(p.base * p.hi * 100) / 100,
    max_daily_change: p.change,
    stock: p.stock,
    season_end: p.stock === null ? null : addDays(TODAY, p.seasonDays - 1),
    updated_at: "2026-01-01T00:00:00.000Z",
  };
  const rows: SalesRow[] = Array.from({ length: p.historyDays }, (_, d) => ({
    date: addDays(TODAY, d - p.historyDays),
    product_id: id,
    price: base * (d % 2 === 0 ? 1.3 : 0.9),
    units_sold: (d * 7 + p.dailyUnits) % (p.dailyUnits + 1),
    stock_on_hand: null,
  }));
  return productState(product, rows, TODAY, { horizonDays: 30 });
}

function byProduct(rows: readonly PlannedPrice[]): Map<string, PlannedPrice[]> {
  const out = new Map<string, PlannedPrice[]>();
  for (const r of rows) out.set(r.product_id, [...(out.get(r.product_id) ?? []), r]);
  return out;
}

describe("planPrices with the rule", () => {
  it("keeps every price inside the guardrails and the max daily change, stock never oversold, rows sorted", () => {
    fc.assert(
      fc.property(
        fc.array(productArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 45 }),
        (cases, days) => {
          const products = cases.map(stateOf);
          const endDate = addDays(TODAY, days);
          const recs = planPrices({
            today: TODAY,
            startDate: TODAY,
            endDate,
            products,
            active: RULE,
            fit: () => null,
          });
          for (const r of recs) {
            expect(r.date >= TODAY && r.date <= endDate).toBe(true);
            expect(r.source).toBe("rule");
            expect(r.price).toBe(r.rule_price);
          }
          const lists = byProduct(recs);
          for (const p of products) {
            const list = lists.get(p.product.product_id) ?? [];
            let prev = p.lastPrice;
            let sold = 0;
            for (const r of list) {
              expect(r.price).toBeGreaterThanOrEqual(p.minPrice - 1e-9);
              expect(r.price).toBeLessThanOrEqual(p.maxPrice + 1e-9);
              const limit = p.product.max_daily_change;
              if (limit !== null && prev !== null && prev >= p.minPrice && prev <= p.maxPrice) {
                expect(Math.abs(r.price / prev - 1)).toBeLessThanOrEqual(limit + 0.01 / r.price + 1e-9);
              }
              if (p.product.season_end !== null) expect(r.date <= p.product.season_end).toBe(true);
              prev = r.price;
              sold += r.expected_units;
            }
            if (p.stock !== null) expect(sold).toBeLessThanOrEqual(p.stock + 1e-3);
          }
          const keys = recs.map((r) => `${r.date}|${r.product_id}`);
          expect(keys).toEqual([...keys].sort());
        },
      ),
      { numRuns: 150, seed: 42 },
    );
  });
});

describe("planPrices explaining", () => {
  it("adds an explanation whose binding follows from the price, the guardrails and the previous price", () => {
    const seen = new Set<string | null>();
    fc.assert(
      fc.property(fc.array(productArb, { minLength: 1, maxLength: 4 }), (cases) => {
        const products = cases.map(stateOf);
        const input = {
          today: TODAY,
          startDate: TODAY,
          endDate: addDays(TODAY, 20),
          products,
          active: RULE,
          fit: () => null,
        };
        const plain = planPrices(input);
        const explained = planPrices({ ...input, explain: true });
        // Explaining never moves a price.
        expect(explained.map(({ explanation: _, ...row }) => row)).toEqual(plain);
        const lists = byProduct(explained);
        for (const p of products) {
          let prev = p.lastPrice;
          let stock = p.stock ?? Number.POSITIVE_INFINITY;
          for (const r of lists.get(p.product.product_id) ?? []) {
            const e = r.explanation;
            if (e === undefined) throw new Error("no explanation");
            seen.add(e.binding);
            const limit = p.product.max_daily_change;
            switch (e.binding) {
              case null:
                expect(r.price).toBe(e.rule_price);
                break;
              case "min_price":
                expect(r.price).toBe(p.minPrice);
                expect(e.rule_price).not.toBe(r.price);
                break;
              case "max_price":
                expect(r.price).toBe(p.maxPrice);
                expect(e.rule_price).not.toBe(r.price);
                break;
              case "max_daily_change": {
                if (limit === null || prev === null) throw new Error("max_daily_change without a limit");
                expect(r.price).toBeGreaterThan(p.minPrice);
                expect(r.price).toBeLessThan(p.maxPrice);
                // At the window's edge on the side the rule wanted to go, to the cent.
                const edge = e.rule_price > r.price ? prev * (1 + limit) : prev * (1 - limit);
                expect(Math.abs(r.price - edge)).toBeLessThanOrEqual(0.01 + 1e-9);
                break;
              }
              default:
                throw new Error(`the rule is never capped: ${e.binding}`);
            }
            const index =
              p.ruleParams.weekdayIndex[(new Date(`${r.date}T00:00:00Z`).getUTCDay() + 6) % 7] ?? 1;
            expect(Math.abs(e.weekday_index - index)).toBeLessThanOrEqual(5e-5 + 1e-12);
            expect(e.elasticity).toBeNull();
            expect(e.observed_price_range[0]).toBeLessThanOrEqual(e.observed_price_range[1]);
            if (Number.isFinite(stock) && r.expected_units > 0) {
              // Cents of a day, off by the rounding of the units (4 decimals) in the ratio and in the stock.
              const u = r.expected_units;
              const tolerance = 0.006 + (stock / u) * (1e-4 / u) + (21 * 5e-5) / u;
              expect(Math.abs((e.stock_cover_days ?? Number.NaN) - stock / u)).toBeLessThanOrEqual(tolerance);
            } else expect(e.stock_cover_days).toBeNull();
            stock = Math.max(0, stock - r.expected_units);
            prev = r.price;
          }
        }
      }),
      { numRuns: 80, seed: 7 },
    );
    expect([...seen].sort()).toEqual(["max_daily_change", "max_price", "min_price", null].sort());
  });

  it("gives the observed price range from the history, the base price alone without it", () => {
    const withHistory = stateOf(
      { base: 10, lo: 0.5, hi: 2, change: null, stock: null, seasonDays: 5, historyDays: 4, dailyUnits: 3 },
      0,
    );
    const without = stateOf(
      { base: 10, lo: 0.5, hi: 2, change: null, stock: null, seasonDays: 5, historyDays: 0, dailyUnits: 3 },
      1,
    );
    const rows = planPrices({
      today: TODAY,
      startDate: TODAY,
      endDate: TODAY,
      products: [withHistory, without],
      active: RULE,
      fit: () => null,
      explain: true,
    });
    expect(rows.map((r) => r.explanation?.observed_price_range)).toEqual([
      [9, 13],
      [10, 10],
    ]);
  });
});

// Two products the policy knows (one with stock and a 10 % max daily change), one it does not.
const catalog = (id: string, over: Partial<CatalogProduct>): CatalogProduct => ({
  product_id: id,
  currency: "EUR",
  base_price: 4,
  unit_cost: 1,
  min_price: null,
  max_price: null,
  max_daily_change: null,
  stock: null,
  season_end: null,
  updated_at: "2026-01-01T00:00:00.000Z",
  ...over,
});
const trained = [
  productState(catalog("tea", { stock: 40, max_daily_change: 0.1, season_end: "2026-03-21" }), [], TODAY, {
    horizonDays: 12,
  }),
  productState(catalog("mug", { base_price: 20, unit_cost: 8 }), [], TODAY, { horizonDays: 8 }),
];
const stranger = productState(catalog("jam", { base_price: 6 }), [], TODAY, { horizonDays: 12 });
const rates = {
  tea: (_: number, p: number) => 6 * (p / 4) ** -2.5,
  mug: (d: number, p: number) => 2 * Math.exp(-1.5 * (p / 20 - 1)) * (d % 7 === 5 ? 1.5 : 1),
};

let policy: RlPolicy;
let active: ActivePolicy;
beforeAll(async () => {
  const problems = trained.map((s) =>
    buildProblem(s.setup, s.product.product_id === "tea" ? rates.tea : rates.mug),
  );
  policy = await trainPolicy({
    companyId: "shop",
    products: trainingDataFromProblems(problems, { tea: 4, mug: 20 }),
    config: { seed: 2, stepsPerDay: 10, finalSteps: 50 },
  });
  active = { source: "approved", modelId: "m-1", policy };
});
afterAll(() => policy.dispose());

describe("planPrices with a policy", () => {
  it("prices with the policy where it covers the product and date, the rule elsewhere, in one pass a day", () => {
    const evaluate = vi.spyOn(policy, "evaluate");
    const endDate = addDays(TODAY, 11);
    const rows = planPrices({
      today: TODAY,
      startDate: TODAY,
      endDate,
      products: [...trained, stranger],
      active,
      fit: () => null,
    });
    expect(evaluate).toHaveBeenCalledTimes(12);
    evaluate.mockRestore();
    const lists = byProduct(rows);
    const tea = lists.get("tea") ?? [];
    const mug = lists.get("mug") ?? [];
    expect(tea.map((r) => r.source)).toEqual(Array(12).fill("approved"));
    expect(tea.every((r) => r.model_id === "m-1")).toBe(true);
    // The mug's horizon ends after 8 days: the rule takes over.
    expect(mug.map((r) => r.source)).toEqual([...Array(8).fill("approved"), ...Array(4).fill("rule")]);
    expect((lists.get("jam") ?? []).every((r) => r.source === "rule" && r.model_id === null)).toBe(true);
    expect(tea.reduce((sum, r) => sum + r.expected_units, 0)).toBeLessThanOrEqual(40 + 1e-3);
    let prev = 4;
    for (const r of tea) {
      expect(Math.abs(r.price / prev - 1)).toBeLessThanOrEqual(0.1 + 1e-9);
      expect(r.expected_revenue).toBeCloseTo(r.expected_units * r.price, 2);
      prev = r.price;
    }
    const keys = rows.map((r) => `${r.date}|${r.product_id}`);
    expect(keys).toEqual([...keys].sort());
  });

  it("serves the policy's own decision on the first day and rolls stock forward by expected sales", () => {
    const later = addDays(TODAY, 3);
    const tea = { ...trained[0], stock: 25, lastPrice: 4.4 } as ProductState;
    const rows = planPrices({
      today: later,
      startDate: later,
      endDate: addDays(later, 1),
      products: [tea],
      active,
      fit: () => null,
    });
    const first = policy.priceStates({
      product: Int32Array.of(policy.productIndex("tea")),
      day: Int32Array.of(3),
      stock: Float64Array.of(25),
      prevPrice: Float64Array.of(4.4),
    });
    expect(rows[0]?.price).toBe(policy.priceAt(0, first[0] ?? -1));
    const units = rows[0]?.expected_units ?? 0;
    expect(units).toBeCloseTo(policy.expectedUnits(0, 3, first[0] ?? -1, 25), 4);
    const second = policy.priceStates({
      product: Int32Array.of(0),
      day: Int32Array.of(4),
      stock: Float64Array.of(25 - policy.expectedUnits(0, 3, first[0] ?? -1, 25)),
      prevPrice: Float64Array.of(rows[0]?.price ?? 0),
    });
    expect(rows[1]?.price).toBe(policy.priceAt(0, second[0] ?? -1));
  });

  it("lets today's tightened guardrails bind on the policy's prices, with units from the fit's fallback", () => {
    const tight = { ...trained[1], maxPrice: 21, minPrice: 19 } as ProductState;
    const rows = planPrices({
      today: TODAY,
      startDate: TODAY,
      endDate: addDays(TODAY, 7),
      products: [tight],
      active,
      fit: () => null,
    });
    expect(rows.every((r) => r.price >= 19 && r.price <= 21 && r.source === "approved")).toBe(true);
  });

  it("names the exploration cap where it alone moved the policy's price", () => {
    // No history: `off` keeps the policy between the base price and the rule's price.
    const advisor = explorationAdvisor([], "off", () => null);
    const input = {
      today: TODAY,
      startDate: TODAY,
      endDate: addDays(TODAY, 7),
      products: trained,
      active,
      fit: () => null,
      explain: true,
    };
    const free = planPrices(input);
    const capped = planPrices({ ...input, advisor });
    expect(free.some((r) => r.explanation?.binding === "exploration_limit")).toBe(false);
    const limited = capped.filter((r) => r.explanation?.binding === "exploration_limit");
    expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) {
      // At an end of the cap's range: the base price or the rule's.
      expect([r.base_price, r.rule_price]).toContain(r.price);
      expect(r.source).toBe("approved");
    }
    // The same plan unexplained: explaining never moves a price.
    const { explain: _, ...plain } = input;
    expect(planPrices({ ...plain, advisor }).map((r) => r.price)).toEqual(capped.map((r) => r.price));
  });

  it("returns only the requested dates, planned from today", () => {
    const start = addDays(TODAY, 2);
    const all = planPrices({
      today: TODAY,
      startDate: TODAY,
      endDate: addDays(TODAY, 4),
      products: trained,
      active,
      fit: () => null,
    });
    const part = planPrices({
      today: TODAY,
      startDate: start,
      endDate: addDays(TODAY, 4),
      products: trained,
      active,
      fit: () => null,
    });
    expect(part).toEqual(all.filter((r) => r.date >= start));
  });
});
