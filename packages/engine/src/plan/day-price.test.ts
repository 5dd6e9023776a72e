import { describe, expect, it } from "vitest";
import { boundPrice, priceBinding } from "./day-price.js";
import { type CatalogProduct, productState } from "./product-state.js";

const product = (over: Partial<CatalogProduct>): CatalogProduct => ({
  product_id: "p",
  currency: "EUR",
  base_price: 10,
  unit_cost: null,
  min_price: 8,
  max_price: 12,
  max_daily_change: 0.1,
  stock: null,
  season_end: null,
  updated_at: "2026-01-01T00:00:00.000Z",
  ...over,
});
const state = (over: Partial<CatalogProduct> = {}) =>
  productState(product(over), [], "2026-03-10", { horizonDays: 7 });

/** The binding of `wanted` after `boundPrice` moved it from `prev`. */
const bindingOf = (s: ReturnType<typeof state>, wanted: number, prev: number | null) =>
  priceBinding(s, wanted, boundPrice(s, wanted, prev));

describe("priceBinding", () => {
  it("is null when the price stands (to the cent)", () => {
    expect(bindingOf(state(), 10, 10)).toBeNull();
    expect(bindingOf(state(), 10.004, 10)).toBeNull();
    expect(bindingOf(state(), 7, null)).toBe("min_price");
  });

  it("names the guardrail a price was clamped to", () => {
    expect(bindingOf(state({ max_daily_change: null }), 5, 10)).toBe("min_price");
    expect(bindingOf(state({ max_daily_change: null }), 15, 10)).toBe("max_price");
  });

  it("names the max daily change when the price stops inside the guardrails", () => {
    expect(bindingOf(state(), 11.5, 10)).toBe("max_daily_change");
    expect(boundPrice(state(), 11.5, 10)).toBe(11);
    expect(bindingOf(state(), 8.5, 10)).toBe("max_daily_change");
    expect(boundPrice(state(), 8.5, 10)).toBe(9);
  });

  it("prefers the guardrail where both reach the same price, and where the daily change cannot hold", () => {
    // Window [7.2, 8.8] from 8: the guardrail 8 is the tighter lower limit.
    expect(bindingOf(state(), 5, 8)).toBe("min_price");
    // A previous price far below the guardrails: the window is empty, the guardrail wins.
    expect(boundPrice(state(), 11, 4)).toBe(8);
    expect(bindingOf(state(), 11, 4)).toBe("min_price");
    expect(bindingOf(state(), 9, 20)).toBe("max_price");
  });

  it("tells the two guardrails apart when they are equal, by the side the price wanted", () => {
    const fixed = state({ min_price: 10, max_price: 10, max_daily_change: null });
    expect(bindingOf(fixed, 12, null)).toBe("max_price");
    expect(bindingOf(fixed, 9, null)).toBe("min_price");
    expect(bindingOf(fixed, 10, null)).toBeNull();
  });
});
