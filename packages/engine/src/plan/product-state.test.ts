import { describe, expect, it } from "vitest";
import type { SalesRow } from "../sales/sales-row.js";
import { type CatalogProduct, productState, seasonLastDay, sellsOn } from "./product-state.js";

const product: CatalogProduct = {
  product_id: "tea",
  currency: "EUR",
  base_price: 4,
  unit_cost: 1.5,
  min_price: null,
  max_price: null,
  max_daily_change: 0.1,
  stock: 50,
  season_end: "2026-03-19",
  updated_at: "2026-03-01T09:00:00.000Z",
};
const row = (date: string, price: number, units: number, stock: number | null): SalesRow => ({
  date,
  product_id: "tea",
  price,
  units_sold: units,
  stock_on_hand: stock,
});

describe("productState", () => {
  it("defaults the guardrails to 0.5x / 2x base and rolls stock forward from the newest stock report", () => {
    const s = productState(
      product,
      [row("2026-03-07", 4.2, 3, 40), row("2026-03-08", 3.9, 5, null)],
      "2026-03-10",
      { horizonDays: 30 },
    );
    expect([s.minPrice, s.maxPrice]).toEqual([2, 8]);
    expect(s.stock).toBe(37);
    expect(s.lastPrice).toBe(3.9);
    expect(s.setup).toMatchObject({
      productId: "tea",
      startDate: "2026-03-10",
      horizon: 10,
      unitCost: 1.5,
      stock: 37,
      initialPrice: 3.9,
      maxDailyChange: 0.1,
    });
    expect(s.setup.prices).toContain(4);
    expect(s.ruleParams.basePrice).toBe(4);
    expect(sellsOn(s, "2026-03-19")).toBe(true);
    expect(sellsOn(s, "2026-03-20")).toBe(false);
    expect(seasonLastDay(s, "2026-03-10")).toBe("2026-03-19");
  });

  it("keeps the operator's stock figure when the row was updated after the newest report", () => {
    const s = productState(product, [row("2026-02-20", 4, 3, 40)], "2026-03-10", { horizonDays: 30 });
    expect(s.stock).toBe(50);
    expect(s.setup.initialPrice).toBe(4);
  });

  it("prices the default horizon without a season end, at most a year", () => {
    const open = { ...product, season_end: null, stock: null, max_daily_change: null };
    const s = productState(open, [], "2026-03-10", { horizonDays: 500 });
    expect(s.setup.horizon).toBe(366);
    expect(s.stock).toBeNull();
    expect(s.lastPrice).toBeNull();
    expect(s.setup.initialPrice).toBeNull();
    expect(seasonLastDay(s, "2026-03-10")).toBe("2027-03-10");
  });
});
