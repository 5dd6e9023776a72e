import { describe, expect, it } from "vitest";
import { generateMarket } from "../market/generate-market.js";
import type { ScenarioInput } from "../market/scenario-schema.js";
import type { SalesRow } from "../sales/sales-row.js";
import { fitDemand, levelOn } from "./fit-demand.js";

const single = (over: Partial<ScenarioInput> = {}, elasticity = 2.5): ScenarioInput => ({
  name: "fit",
  seed: 3,
  start_date: "2026-03-02",
  horizon: 30,
  history: { days: 365, price_variation: 0.15, change_every_days: 7 },
  products: [
    {
      product_id: "a",
      reference_price: 20,
      demand: {
        family: "constant_elasticity",
        base_rate: 10,
        elasticity,
        weekday: [0.8, 0.9, 1, 1, 1.1, 1.4, 0.8],
      },
    },
  ],
  ...over,
});

describe("fitDemand", () => {
  it("recovers the true elasticity, base rate and weekday profile from history rows alone", () => {
    const market = generateMarket(single());
    const fit = fitDemand(market.history, [{ productId: "a", referencePrice: 20 }], {
      priorElasticitySd: 100,
    });
    const p = fit.products.get("a")!;
    expect(p.report.elasticitySource).toBe("data");
    expect(Math.abs(p.elasticity - 2.5)).toBeLessThan(3 * p.stdErrors.elasticity);
    expect(p.stdErrors.elasticity).toBeGreaterThan(0);
    expect(p.stdErrors.elasticity).toBeLessThan(0.5);
    // True weekday-average rate at the reference price is 10 * mean(weekday) = 10.
    expect(p.baseRate).toBeGreaterThan(9);
    expect(p.baseRate).toBeLessThan(11);
    expect(p.weekdayFactors[5]! / p.weekdayFactors[0]!).toBeGreaterThan(1.5);
    expect(fit.rate("a", "2026-03-07", 20)).toBeCloseTo(p.baseRate * p.weekdayFactors[5]!, 10);
  });

  it("recovers a negative binomial market's elasticity, weekday, alpha and promotion lift within 2 standard errors", () => {
    const weekday = [0.8, 0.9, 1, 1, 1.1, 1.4, 0.8];
    const market = generateMarket(
      single({
        distribution: "negative_binomial",
        seed: 11,
        history: { days: 365, price_variation: 0.15, change_every_days: 7, promoted_share: 0.15 },
        products: [
          {
            product_id: "a",
            reference_price: 20,
            demand: {
              family: "constant_elasticity",
              base_rate: 12,
              elasticity: 2.2,
              weekday,
              overdispersion: 0.25,
              promotion_lift: 1.6,
            },
          },
        ],
      }),
    );
    expect(market.history.some((r) => r.promoted === 1)).toBe(true);
    const p = fitDemand(market.history, [{ productId: "a", referencePrice: 20 }], {
      priorElasticitySd: 100,
    }).products.get("a")!;
    const within = (estimate: number, truth: number, se: number) => {
      expect(se).toBeGreaterThan(0);
      expect(Math.abs(estimate - truth)).toBeLessThan(2 * se);
    };
    within(p.elasticity, 2.2, p.stdErrors.elasticity);
    within(p.overdispersion, 0.25, p.stdErrors.overdispersion);
    within(Math.log(p.promotionLift), Math.log(1.6), p.stdErrors.promotion);
    // Saturday against Monday, on the log scale the weekday errors are stated in.
    within(
      Math.log(p.weekdayFactors[5]! / p.weekdayFactors[0]!),
      Math.log(1.4 / 0.8),
      p.stdErrors.weekdayLog[5]!,
    );
    within(
      Math.log(p.weekdayFactors[1]! / p.weekdayFactors[0]!),
      Math.log(0.9 / 0.8),
      p.stdErrors.weekdayLog[1]!,
    );
    // A flat market's level stays flat.
    expect(p.report.levelMoves).toBe(false);
    expect(p.level.weekly.every((m) => m === 1)).toBe(true);
  });

  it("follows a level that moves and carries its last week forward, the price effect unbiased by it", () => {
    const days = 364;
    // Flat for 40 weeks, then a rise to 1.8x over the last 12 (a season): the rise is not a price effect.
    const multipliers = Array.from({ length: days }, (_, d) => {
      const week = Math.floor(d / 7);
      return week < 40 ? 1 : 1 + (0.8 * (week - 39)) / 12;
    });
    const market = generateMarket(
      single({
        distribution: "negative_binomial",
        seed: 5,
        history: { days, price_variation: 0.15, change_every_days: 7 },
        products: [
          {
            product_id: "a",
            reference_price: 20,
            demand: {
              family: "constant_elasticity",
              base_rate: 10,
              elasticity: 2,
              overdispersion: 0.05,
              history_multipliers: multipliers,
            },
          },
        ],
      }),
    );
    const fit = fitDemand(market.history, [{ productId: "a", referencePrice: 20 }], {
      priorElasticitySd: 100,
    });
    const p = fit.products.get("a")!;
    expect(p.report.levelMoves).toBe(true);
    expect(p.report.notes.join(" ")).toMatch(/level moves/);
    // The last week's level (1.8x) is carried forward, within 15 %.
    expect(p.baseRate / 10).toBeGreaterThan(1.8 * 0.85);
    expect(p.baseRate / 10).toBeLessThan(1.8 * 1.15);
    // Early history sits near 1 / 1.8 of it.
    expect(levelOn(p, market.history[0]!.date)).toBeGreaterThan(0.45);
    expect(levelOn(p, market.history[0]!.date)).toBeLessThan(0.7);
    expect(levelOn(p, "2099-01-01")).toBe(1);
    expect(Math.abs(p.elasticity - 2)).toBeLessThan(2 * p.stdErrors.elasticity);
  });

  it("falls back to the prior on a constant price, says so, and gives a standard error", () => {
    const market = generateMarket(
      single({ history: { days: 200, price_variation: 0, change_every_days: 7 } }),
    );
    expect(new Set(market.history.map((r) => r.price)).size).toBe(1);
    const p = fitDemand(market.history, undefined, { priorElasticity: 1.8 }).products.get("a")!;
    expect(p.report.elasticitySource).toBe("prior");
    expect(p.elasticity).toBeCloseTo(1.8, 10);
    expect(p.stdErrors.elasticity).toBeCloseTo(1, 10);
    expect(p.report.notes.join(" ")).toMatch(/price never varied/);
    expect(Number.isFinite(p.baseRate)).toBe(true);
  });

  it("pools a flat-priced product toward its company's elasticity", () => {
    const market = generateMarket({
      name: "company",
      seed: 4,
      start_date: "2026-03-02",
      horizon: 14,
      history: { days: 365, price_variation: 0.15, change_every_days: 7 },
      company: { count: 12, elasticity: [2.8, 3.2] },
    });
    // Freeze one product's history price: its elasticity must come from the others.
    const rows: SalesRow[] = market.history.map((r) => (r.product_id === "p01" ? { ...r, price: 10 } : r));
    const fit = fitDemand(rows);
    const flat = fit.products.get("p01")!;
    expect(flat.report.elasticitySource).toBe("pooled");
    expect(flat.elasticity).toBeCloseTo(fit.company.meanElasticity, 10);
    expect(fit.company.meanElasticity).toBeGreaterThan(2.5);
    expect(fit.company.meanElasticity).toBeLessThan(3.5);
    expect(fit.company.productsWithPriceVariation).toBe(11);
  });

  it("pulls a product with thin history toward the company's weekday profile and elasticity", () => {
    const market = generateMarket({
      name: "thin",
      seed: 6,
      start_date: "2026-03-02",
      horizon: 14,
      history: { days: 365, price_variation: 0.15, change_every_days: 7 },
      company: { count: 10, elasticity: [2.4, 2.6], weekday: [1, 1, 1, 1, 1, 2, 1], weekday_jitter: 0 },
    });
    // Keep only 10 days of one product: alone it could not tell Saturday from the rest.
    const rows = market.history.filter((r) => r.product_id !== "p01" || r.date >= "2026-02-20");
    const alone = fitDemand(rows.filter((r) => r.product_id === "p01")).products.get("p01")!;
    const pooled = fitDemand(rows).products.get("p01")!;
    expect(pooled.report.notes.join(" ")).toMatch(/thin history/);
    expect(Math.abs(pooled.elasticity - 2.5)).toBeLessThan(Math.abs(alone.elasticity - 2.5) + 1e-9);
    expect(pooled.stdErrors.elasticity).toBeLessThan(alone.stdErrors.elasticity);
    const saturdayLift = pooled.weekdayFactors[5]! / pooled.weekdayFactors[0]!;
    expect(saturdayLift).toBeGreaterThan(1.6);
    expect(saturdayLift).toBeLessThan(2.4);
  });

  it("keeps the elasticity non-negative when the data say demand rises with price", () => {
    const market = generateMarket(single({}, 0));
    // Inflate units on expensive days: an upward-sloping "demand".
    const rows = market.history.map((r) => ({
      ...r,
      units_sold: r.price > 20 ? r.units_sold * 2 : r.units_sold,
    }));
    const p = fitDemand(rows).products.get("a")!;
    expect(p.elasticity).toBe(0);
    expect(p.report.signConstrained).toBe(true);
  });

  it("leaves stock-out days out and lists products without usable rows", () => {
    const rows: SalesRow[] = [
      { date: "2026-01-05", product_id: "x", price: 5, units_sold: 3, stock_on_hand: 3 },
      { date: "2026-01-06", product_id: "x", price: 5, units_sold: 1, stock_on_hand: 9 },
      { date: "2026-01-05", product_id: "y", price: 5, units_sold: 2, stock_on_hand: 2 },
    ];
    const fit = fitDemand(rows);
    expect(fit.products.get("x")!.report.usedRows).toBe(1);
    expect(fit.company.unfitted).toEqual(["y"]);
    expect(() => fit.rate("y", "2026-01-07", 5)).toThrow(/no fitted demand/);
  });

  it("fits a 100-product company", () => {
    const market = generateMarket({
      name: "big",
      seed: 9,
      start_date: "2026-03-02",
      horizon: 14,
      company: { count: 100 },
    });
    const fit = fitDemand(market.history);
    expect(fit.products.size).toBe(100);
    for (const p of fit.products.values()) {
      expect(p.report.converged).toBe(true);
      expect(p.elasticity).toBeGreaterThanOrEqual(0);
    }
  });
});
