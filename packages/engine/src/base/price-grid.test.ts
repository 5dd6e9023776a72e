import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildProblem } from "../problem/problem-setup.js";
import { CATALOG_GRID_STEP, catalogGrid, NoPrintablePriceError } from "./price-grid.js";

describe("catalogGrid", () => {
  it("steps 4 % of the base price around it and contains both guardrails", () => {
    const prices = catalogGrid({
      basePrice: 10,
      minPrice: 5,
      maxPrice: 20,
      maxDailyChange: null,
      currency: "USD",
    });
    expect(CATALOG_GRID_STEP).toBe(0.04);
    expect(prices[0]).toBe(5);
    expect(prices.at(-1)).toBe(20);
    expect(prices).toContain(10);
    expect(prices).toContain(10.4);
    expect(prices).toContain(9.6);
    expect(prices).toHaveLength(39);
  });

  it("puts an off-grid base price on the grid, clamped to the guardrails", () => {
    expect(
      catalogGrid({ basePrice: 9.99, minPrice: 5, maxPrice: 19.98, maxDailyChange: null, currency: "USD" }),
    ).toContain(9.99);
    expect(
      catalogGrid({ basePrice: 30, minPrice: 5, maxPrice: 20, maxDailyChange: null, currency: "USD" }).at(-1),
    ).toBe(20);
  });

  it("yields a valid problem whose grid steps fit the max daily change wherever cents can (property)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 500, noNaN: true }),
        fc.double({ min: 0.3, max: 1, noNaN: true }),
        fc.double({ min: 1, max: 3, noNaN: true }),
        fc.option(fc.constantFrom(0.03, 0.05, 0.1, 0.25), { nil: null }),
        (base, lo, hi, limit) => {
          const basePrice = Math.round(base * 100) / 100;
          const minPrice = Math.round(basePrice * lo * 100) / 100;
          const maxPrice = Math.round(basePrice * hi * 100) / 100;
          // Cents can honour the limit only where one cent is within it.
          fc.pre(limit === null || 0.01 / minPrice <= limit);
          const prices = catalogGrid({
            basePrice,
            minPrice,
            maxPrice,
            maxDailyChange: limit,
            currency: "USD",
          });
          const setup = {
            productId: "a",
            startDate: "2026-03-02",
            horizon: 3,
            prices,
            minPrice,
            maxPrice,
            shutoff: false,
            unitCost: 0,
            stock: 10,
            maxDailyChange: limit,
            initialPrice: limit === null ? null : basePrice,
            distribution: "poisson" as const,
            overdispersion: 0,
          };
          // buildProblem validates guardrails, ascending grid and step vs max daily change.
          expect(() => buildProblem(setup, () => 1)).not.toThrow();
        },
      ),
      { numRuns: 200, seed: 3 },
    );
  });

  it("leaves a one-cent step a max daily change cannot honour for the problem's validation to report", () => {
    const prices = catalogGrid({
      basePrice: 0.5,
      minPrice: 0.25,
      maxPrice: 1,
      maxDailyChange: 0.01,
      currency: "USD",
    });
    expect(prices.slice(0, 3)).toEqual([0.25, 0.26, 0.27]);
  });

  it("holds only printable prices of the currency and endings, both printable ends of the guardrails", () => {
    const eur = catalogGrid({
      basePrice: 20,
      minPrice: 10,
      maxPrice: 40,
      maxDailyChange: null,
      currency: "EUR",
      endings: [".99"],
    });
    expect(eur[0]).toBe(10.99);
    expect(eur.at(-1)).toBe(39.99);
    expect(eur.every((p) => Math.round(p * 100) % 100 === 99)).toBe(true);
    const jpy = catalogGrid({
      basePrice: 1980,
      minPrice: 990,
      maxPrice: 3960,
      maxDailyChange: 0.05,
      currency: "JPY",
    });
    expect(jpy.every((p) => Number.isInteger(p))).toBe(true);
    const kwd = catalogGrid({
      basePrice: 2.345,
      minPrice: 1.25,
      maxPrice: 5,
      maxDailyChange: null,
      currency: "KWD",
    });
    expect(kwd).toContain(2.439);
    expect(kwd.some((p) => Math.round(p * 1000) % 10 !== 0)).toBe(true);
  });

  it("refuses guardrails that admit no printable price", () => {
    expect(() =>
      catalogGrid({
        basePrice: 10.2,
        minPrice: 10.1,
        maxPrice: 10.5,
        maxDailyChange: null,
        currency: "EUR",
        endings: [".99"],
      }),
    ).toThrow(NoPrintablePriceError);
  });

  it("rejects inverted guardrails", () => {
    expect(() =>
      catalogGrid({ basePrice: 10, minPrice: 12, maxPrice: 11, maxDailyChange: null, currency: "USD" }),
    ).toThrow(/min above max/);
  });
});
