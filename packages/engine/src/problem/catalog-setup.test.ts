import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { setupFromCatalog } from "./catalog-setup.js";
import { buildProblem } from "./problem-setup.js";

describe("setupFromCatalog", () => {
  it("defaults the guardrails to 0.5x / 2x base and puts the base price on the grid", () => {
    const s = setupFromCatalog({ productId: "a", basePrice: 9.99 }, { startDate: "2026-03-02", horizon: 7 });
    expect(s.minPrice).toBe(5);
    expect(s.maxPrice).toBe(19.98);
    expect(s.prices).toContain(9.99);
    expect(s.prices[0]).toBe(5);
    expect(s.prices[s.prices.length - 1]).toBe(19.98);
    expect(s.stock).toBeNull();
  });

  it("always yields a valid problem whose grid steps fit the max daily change", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 500, noNaN: true }),
        fc.option(fc.constantFrom(0.03, 0.05, 0.1, 0.25), { nil: null }),
        (base, limit) => {
          const basePrice = Math.round(base * 100) / 100;
          const s = setupFromCatalog(
            { productId: "a", basePrice, maxDailyChange: limit, stock: 10 },
            { startDate: "2026-03-02", horizon: 3 },
          );
          // buildProblem validates guardrails, ascending grid and step vs max daily change.
          expect(() => buildProblem(s, () => 1)).not.toThrow();
        },
      ),
      { numRuns: 200, seed: 3 },
    );
  });

  it("says so when cents cannot honour the max daily change", () => {
    expect(() =>
      setupFromCatalog(
        { productId: "a", basePrice: 0.5, maxDailyChange: 0.01 },
        { startDate: "2026-03-02", horizon: 1 },
      ),
    ).toThrow(/too small/);
  });

  it("rejects inverted guardrails", () => {
    expect(() =>
      setupFromCatalog(
        { productId: "a", basePrice: 10, minPrice: 12, maxPrice: 11 },
        { startDate: "2026-03-02", horizon: 1 },
      ),
    ).toThrow(/min_price/);
  });
});
