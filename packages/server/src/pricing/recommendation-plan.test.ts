import { addDays, type SalesRow } from "@pricing/engine";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ProductRow } from "../db/schema.js";
import { type CompanySnapshot, productSnapshot } from "./company-snapshot.js";
import { planRecommendations } from "./recommendation-plan.js";

const TODAY = "2026-03-10";

const productArb = fc
  .record({
    base: fc.double({ min: 1, max: 500, noNaN: true }),
    lo: fc.double({ min: 0.3, max: 1, noNaN: true }),
    hi: fc.double({ min: 1, max: 3, noNaN: true }),
    change: fc.option(fc.double({ min: 0.02, max: 0.3, noNaN: true }), { nil: null }),
    stock: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
    seasonDays: fc.integer({ min: 1, max: 40 }),
    historyDays: fc.integer({ min: 0, max: 60 }),
    dailyUnits: fc.integer({ min: 0, max: 20 }),
  })
  .map((p) => p);

type ProductCase = typeof productArb extends fc.Arbitrary<infer T> ? T : never;

function snapshotOf(products: ProductCase[]): CompanySnapshot {
  const history: SalesRow[] = [];
  const snaps = products.map((p, i) => {
    const id = `p${i}`;
    const row: ProductRow = {
      company_id: "co",
      product_id: id,
      name: null,
      currency: "EUR",
      base_price: Math.round(p.base * 100) / 100,
      unit_cost: null,
      min_price: Math.round(p.base * p.lo * 100) / 100,
      max_price: Math.round(p.base * p.hi * 100) / 100,
      max_daily_change: p.change,
      stock: p.stock,
      season_end: p.stock === null ? null : addDays(TODAY, p.seasonDays - 1),
      updated_at: "2026-01-01T00:00:00.000Z",
    };
    const rows = Array.from({ length: p.historyDays }, (_, d) => ({
      date: addDays(TODAY, d - p.historyDays),
      product_id: id,
      price: row.base_price * (d % 2 === 0 ? 1.3 : 0.9),
      units_sold: (d * 7 + p.dailyUnits) % (p.dailyUnits + 1),
      stock_on_hand: null,
    }));
    history.push(...rows);
    return productSnapshot(row, rows, TODAY, { horizonDays: 30 });
  });
  return {
    company: { company_id: "co", name: "Co", timezone: "UTC", currency: "EUR", created_at: "" },
    today: TODAY,
    products: snaps,
    history,
    historyDays: 0,
  };
}

describe("planRecommendations with the rule", () => {
  it("keeps every price inside the guardrails and the max daily change, stock never oversold, rows sorted", () => {
    fc.assert(
      fc.property(
        fc.array(productArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 45 }),
        (products, days) => {
          const snapshot = snapshotOf(products);
          const endDate = addDays(TODAY, days);
          const recs = planRecommendations({
            snapshot,
            active: { source: "rule", modelId: null, policy: null },
            fit: () => null,
            startDate: TODAY,
            endDate,
          });
          const byProduct = new Map<string, typeof recs>();
          for (const r of recs) {
            expect(r.date >= TODAY && r.date <= endDate).toBe(true);
            expect(r.source).toBe("rule");
            expect(r.price).toBe(r.rule_price);
            const list = byProduct.get(r.product_id) ?? [];
            list.push(r);
            byProduct.set(r.product_id, list);
          }
          for (const p of snapshot.products) {
            const list = byProduct.get(p.row.product_id) ?? [];
            let prev = p.lastPrice;
            let sold = 0;
            for (const r of list) {
              expect(r.price).toBeGreaterThanOrEqual(p.minPrice - 1e-9);
              expect(r.price).toBeLessThanOrEqual(p.maxPrice + 1e-9);
              if (
                p.row.max_daily_change !== null &&
                prev !== null &&
                prev >= p.minPrice &&
                prev <= p.maxPrice
              ) {
                expect(Math.abs(r.price / prev - 1)).toBeLessThanOrEqual(
                  p.row.max_daily_change + 0.01 / r.price + 1e-9,
                );
              }
              if (p.row.season_end !== null) expect(r.date <= p.row.season_end).toBe(true);
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
