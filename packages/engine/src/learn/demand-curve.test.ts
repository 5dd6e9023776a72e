import { describe, expect, it } from "vitest";
import { addDays } from "../base/calendar.js";
import { type CatalogProduct, productState } from "../plan/product-state.js";
import type { SalesRow } from "../sales/sales-row.js";
import { demandCurves } from "./demand-curve.js";
import { demandCurvesInWorker } from "./demand-curve-in-worker.js";

const TODAY = "2026-03-10";

function product(id: string, overrides: Partial<CatalogProduct> = {}): CatalogProduct {
  return {
    product_id: id,
    currency: "EUR",
    base_price: 20,
    unit_cost: 5,
    min_price: 10,
    max_price: 40,
    max_daily_change: null,
    stock: null,
    season_end: null,
    updated_at: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

/** Twelve weeks at 16, 20 and 24 in turn, selling more at the lower prices (about 30 x (price / 20) ^ -2 a day). */
function history(id: string): SalesRow[] {
  return Array.from({ length: 84 }, (_, d) => {
    const price = [16, 20, 24][Math.floor(d / 7) % 3] ?? 20;
    return {
      date: addDays(TODAY, d - 84),
      product_id: id,
      price,
      units_sold: Math.round(30 * (price / 20) ** -2) + (d % 3) - 1,
      stock_on_hand: null,
    };
  });
}

function input(products: CatalogProduct[], rows: SalesRow[]) {
  const sorted = [...rows].sort((a, b) => a.date.localeCompare(b.date));
  const states = products.map((p) =>
    productState(
      p,
      sorted.filter((r) => r.product_id === p.product_id),
      TODAY,
      { horizonDays: 30 },
    ),
  );
  return { today: TODAY, products: states, history: sorted, exploration: "cautious" as const, seed: "test" };
}

describe("demand curves", () => {
  const rows = [...history("a"), ...history("b")];
  const curves = demandCurves(input([product("a"), product("b", { stock: 12 }), product("new")], rows));
  const [a, b, fresh] = curves;

  it("price the grid inside the guardrails, selling less at higher prices, inside their band", () => {
    expect(a?.points.length).toBeGreaterThan(10);
    const points = a?.points ?? [];
    expect(points.every((p) => p.price >= 10 && p.price <= 40)).toBe(true);
    for (let i = 1; i < points.length; i++) {
      expect(points[i]?.price).toBeGreaterThan(points[i - 1]?.price ?? Number.NaN);
      expect(points[i]?.expectedUnits).toBeLessThanOrEqual(points[i - 1]?.expectedUnits ?? Number.NaN);
    }
    for (const p of points) {
      expect(p.unitsP10).toBeLessThanOrEqual(p.expectedUnits + 0.5);
      expect(p.unitsP90).toBeGreaterThanOrEqual(p.expectedUnits - 0.5);
      expect(p.expectedMargin).toBeCloseTo((p.price - 5) * p.expectedUnits, 1);
      expect(p.marginP10).toBeLessThanOrEqual(p.marginP90);
    }
    // The fit recovers the history's elasticity of about 2.
    expect(a?.elasticity).toBeGreaterThan(1.5);
    expect(a?.elasticity).toBeLessThan(2.5);
    const at20 = points.find((p) => p.price === 20);
    expect(at20?.expectedUnits).toBeGreaterThan(25);
    expect(at20?.expectedUnits).toBeLessThan(35);
  });

  it("show the history's days per price and its observed range", () => {
    expect(a?.observedPriceRange).toEqual([16, 24]);
    expect(a?.observed.map((o) => [o.price, o.days])).toEqual([
      [16, 28],
      [20, 28],
      [24, 28],
    ]);
    const at16 = history("a").filter((r) => r.price === 16);
    expect(a?.observed[0]?.meanUnits).toBeCloseTo(
      at16.reduce((s, r) => s + r.units_sold, 0) / at16.length,
      3,
    );
  });

  it("cap the units at the stock on hand", () => {
    expect(b?.points.every((p) => p.expectedUnits <= 12 && p.unitsP90 <= 12)).toBe(true);
    expect(b?.points[0]?.expectedUnits).toBeGreaterThan(11);
  });

  it("draw no curve for a product without history", () => {
    expect(fresh).toMatchObject({
      productId: "new",
      points: [],
      observed: [],
      observedPriceRange: null,
      elasticity: null,
    });
  });

  it("draw only the products asked for, from the same company-wide fit", () => {
    const only = demandCurves({
      ...input([product("a"), product("b", { stock: 12 }), product("new")], rows),
      productIds: ["b"],
    });
    expect(only).toEqual([b]);
  });

  it("come out of a worker thread the same", async () => {
    expect(
      await demandCurvesInWorker(input([product("a"), product("b", { stock: 12 }), product("new")], rows)),
    ).toEqual(curves);
  });
});
