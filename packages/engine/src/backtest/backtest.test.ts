import { describe, expect, it } from "vitest";
import { addDays } from "../base/calendar.js";
import { planWithLearning } from "../learn/learning-plan.js";
import { productState } from "../plan/product-state.js";
import type { SalesRow } from "../sales/sales-row.js";
import { backtest } from "./backtest.js";
import { BacktestError, BacktestReportSchema, figuresOf } from "./backtest-report.js";
import { catalogueProduct, syntheticCompany } from "./test-support/synthetic-company.js";

const poissonMarket = () => syntheticCompany("unlimited-stock");
const catalogue = catalogueProduct;

describe("backtest", () => {
  it("holds a Poisson market's held-out days in its band about as often as it promises, unbiased", () => {
    const { market, products, last } = poissonMarket();
    const from = addDays(last, -55);
    const report = backtest({ companyId: "c", products, sales: market.history, from, horizonDays: 60 });
    expect(BacktestReportSchema.parse(report)).toEqual(report);
    expect(report.to).toBe(last);
    expect(report.summary.rows).toBe(56);
    // The model is the truth's family: its band holds ~80 % of days, its mean misses by sampling noise alone.
    expect(report.summary.coverage_p10_p90).toBeGreaterThanOrEqual(0.7);
    expect(report.summary.coverage_p10_p90).toBeLessThanOrEqual(0.93);
    expect(Math.abs(report.summary.bias ?? 1)).toBeLessThan(0.08);
    // Prices moved weekly by +-10 % at elasticity 2.5: the price-aware fit beats the same-weekday mean.
    expect(report.summary.wape).toBeLessThan(report.summary.baseline_wape ?? 0);
    const [product] = report.products;
    expect(product?.elasticity).toBeGreaterThan(1.5);
    expect(product?.elasticity).toBeLessThan(3.5);
    expect(product?.elasticity_se).toBeGreaterThan(0);
    // A Poisson market: the NB2 alpha the fit reports is about 0.
    expect(product?.overdispersion).toBeGreaterThanOrEqual(0);
    expect(product?.overdispersion).toBeLessThan(0.05);
    for (const r of report.rows) {
      expect(r.expected_units_p10).toBeLessThanOrEqual(r.expected_units);
      expect(r.expected_units).toBeLessThanOrEqual(r.expected_units_p90);
    }
  });

  /**
   * The plan on a day 20 days before the end (the learner's when `online`, the rule's with the fit's band when not),
   * and the backtest of one sale that day at the plan's own price, fitted once on the same history.
   */
  function servedAndScored(online: boolean, promoted = 0) {
    const { market, products, last } = poissonMarket();
    const today = addDays(last, -20);
    // With a promotion today, every fifth history day was promoted and sold twice its units: a lift to learn.
    const history = market.history
      .filter((r) => r.date < today)
      .map((r, i) => (promoted > 0 && i % 5 === 0 ? { ...r, promoted: 1, units_sold: 2 * r.units_sold } : r));
    const [served] = planWithLearning({
      today,
      startDate: today,
      endDate: today,
      products: products.map((p) => productState(p, history, today, { horizonDays: 60 })),
      active: { source: "rule", modelId: null, policy: null },
      history,
      exploration: "cautious",
      seed: "c",
      online,
      ...(promoted > 0
        ? { promotions: [{ date: today, product_id: products[0]?.product_id ?? "", promoted }] }
        : {}),
    });
    if (served === undefined) throw new Error("no plan row");
    const sale: SalesRow = {
      date: today,
      product_id: served.product_id,
      price: served.price,
      units_sold: 7,
      stock_on_hand: null,
      promoted,
    };
    const report = backtest({
      companyId: "c",
      products,
      sales: [...history, sale],
      from: today,
      refit: "once",
      online,
      horizonDays: 60,
    });
    return { served, report, today };
  }

  it("scores the band a plan serves: at the learner's own price the plan's row and the backtest's row agree", () => {
    const { served, report, today } = servedAndScored(true);
    expect(served.expected_units_p90).toBeDefined();
    expect(report.rows).toEqual([
      {
        date: today,
        product_id: served.product_id,
        price: served.price,
        promoted: 0,
        units_sold: 7,
        expected_units: served.expected_units,
        expected_units_p10: served.expected_units_p10,
        expected_units_p90: served.expected_units_p90,
      },
    ]);
  });

  it("scores what a forced-rule plan serves when not online: the fit's units and the advisor's band", () => {
    const { served, report } = servedAndScored(false);
    expect(report.rows[0]).toMatchObject({
      expected_units: served.expected_units,
      expected_units_p10: served.expected_units_p10,
      expected_units_p90: served.expected_units_p90,
    });
    expect(report.products[0]?.elasticity).toBeGreaterThan(0);
  });

  it("scores a promoted day as a forced-rule plan serves it, the promotion's lift included", () => {
    const plain = servedAndScored(false);
    const { served, report } = servedAndScored(false, 1);
    expect(report.rows[0]).toMatchObject({
      promoted: 1,
      expected_units: served.expected_units,
      expected_units_p10: served.expected_units_p10,
      expected_units_p90: served.expected_units_p90,
    });
    // The history's promoted days sold twice as much: the promoted day's forecast is well above the plain one's.
    expect(report.rows[0]?.expected_units).toBeGreaterThan(1.5 * (plain.report.rows[0]?.expected_units ?? 0));
  });

  it("never lets a fit see the day it predicts: daily refits use the sales before each day, once those before from", () => {
    const { market, products, last } = poissonMarket();
    const from = addDays(last, -13);
    const daily = backtest({ companyId: "c", products, sales: market.history, from, horizonDays: 60 });
    const once = backtest({
      companyId: "c",
      products,
      sales: market.history,
      from,
      refit: "once",
      horizonDays: 60,
    });
    // The first day's fit is the same for both; later days differ (daily has seen the days between).
    expect(daily.rows[0]).toEqual(once.rows[0]);
    expect(daily.rows.slice(1)).not.toEqual(once.rows.slice(1));
    // Tenfold sales on and after a day change nothing predicted for that day.
    const day = addDays(from, 5);
    const inflated = market.history.map((r) => (r.date >= day ? { ...r, units_sold: r.units_sold * 10 } : r));
    const after = backtest({ companyId: "c", products, sales: inflated, from, horizonDays: 60 });
    const predicted = (rows: typeof daily.rows) =>
      rows.map(({ units_sold: _, ...r }) => r).filter((r) => r.date <= day);
    expect(predicted(after.rows)).toEqual(predicted(daily.rows));
  });

  it("takes the seasonal-naive baseline from the same weekday of the 8 weeks before the fit", () => {
    const start = "2024-01-01"; // a Monday
    // Mondays sell 10 + week, other days 1: the baseline of a Monday is the mean of the 8 Mondays before.
    const sales: SalesRow[] = Array.from({ length: 84 }, (_, d) => ({
      date: addDays(start, d),
      product_id: "p",
      price: 2 + (d % 3) * 0.1,
      units_sold: d % 7 === 0 ? 10 + d / 7 : 1,
      stock_on_hand: null,
    }));
    const from = addDays(start, 70); // Monday of week 10
    const once = backtest({
      companyId: "c",
      products: [catalogue("p", 2)],
      sales,
      from,
      to: addDays(from, 7),
      refit: "once",
      horizonDays: 30,
    });
    // Once: both Mondays (weeks 10 and 11) forecast from weeks 2..9, mean 10 + 5.5; the other days 1.
    const mondays = once.rows.filter((r) => r.date === from || r.date === addDays(from, 7));
    const baselineError = (units: number[], baseline: number[]) =>
      units.reduce((a, u, i) => a + Math.abs(u - (baseline[i] ?? 0)), 0) / units.reduce((a, u) => a + u, 0);
    expect(mondays.map((r) => r.units_sold)).toEqual([20, 21]);
    expect(once.summary.baseline_wape).toBeCloseTo(
      baselineError([20, 1, 1, 1, 1, 1, 1, 21], [15.5, 1, 1, 1, 1, 1, 1, 15.5]),
      4,
    );
    const daily = backtest({
      companyId: "c",
      products: [catalogue("p", 2)],
      sales,
      from,
      to: addDays(from, 7),
      horizonDays: 30,
    });
    // Daily: week 11's Monday forecasts from weeks 3..10, mean 10 + 6.5.
    expect(daily.summary.baseline_wape).toBeCloseTo(
      baselineError([20, 1, 1, 1, 1, 1, 1, 21], [15.5, 1, 1, 1, 1, 1, 1, 16.5]),
      4,
    );
  });

  it("carries each row's promotion through and reads a missing one as 0", () => {
    const { market, products, last } = poissonMarket();
    const from = addDays(last, -1);
    const sales: SalesRow[] = market.history.map((r) => (r.date === last ? { ...r, promoted: 0.4 } : r));
    const report = backtest({ companyId: "c", products, sales, from, horizonDays: 60 });
    expect(report.rows.map((r) => r.promoted)).toEqual([0, 0.4]);
  });

  it("refuses a range it cannot score, with a stable code", () => {
    const { market, products, last } = poissonMarket();
    const first = market.history[0]?.date ?? "";
    const run = (from: string, to?: string) => () =>
      backtest({
        companyId: "c",
        products,
        sales: market.history,
        from,
        ...(to ? { to } : {}),
        horizonDays: 60,
      });
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return error instanceof BacktestError ? error.code : `other: ${String(error)}`;
      }
      return "none";
    };
    expect(code(run(first))).toBe("no_history_before");
    expect(code(run(addDays(last, 1)))).toBe("no_sales_in_range");
    expect(code(run(addDays(last, -5), addDays(last, -9)))).toBe("invalid_range");
    expect(code(run("2024-13-01"))).toBe("invalid_range");
    expect(code(run("yesterday"))).toBe("invalid_range");
  });
});

describe("figuresOf", () => {
  it("computes WAPE, the baseline's WAPE, bias and the band's coverage over the units sold", () => {
    const figures = figuresOf([
      { units: 10, expected: 8, baseline: 10, p10: 5, p90: 12 },
      { units: 0, expected: 1, baseline: 2, p10: 0, p90: 3 },
      { units: 10, expected: 14, baseline: 5, p10: 11, p90: 18 },
    ]);
    expect(figures).toEqual({
      rows: 3,
      wape: 7 / 20,
      baseline_wape: 7 / 20,
      bias: 3 / 20,
      coverage_p10_p90: 0.6667,
    });
    expect(figuresOf([{ units: 0, expected: 1, baseline: 0, p10: 0, p90: 2 }])).toEqual({
      rows: 1,
      wape: null,
      baseline_wape: null,
      bias: null,
      coverage_p10_p90: 1,
    });
  });
});
