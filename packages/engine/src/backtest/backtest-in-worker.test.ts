import { describe, expect, it } from "vitest";
import { addDays } from "../base/calendar.js";
import { builtinScenarios } from "../market/builtin-scenarios.js";
import { generateMarket } from "../market/generate-market.js";
import { backtest } from "./backtest.js";
import { type BacktestProgress, backtestInWorker } from "./backtest-in-worker.js";
import { BacktestError } from "./backtest-report.js";

const scenario = builtinScenarios().find((s) => s.name === "loose-stock");
if (scenario === undefined) throw new Error("no loose-stock scenario");
const market = generateMarket(scenario);
const last = market.history.at(-1)?.date ?? "";
const input = {
  companyId: "c",
  products: market.products.map((p) => ({
    product_id: p.productId,
    currency: "EUR",
    base_price: p.referencePrice,
    unit_cost: p.unitCost,
    min_price: null,
    max_price: null,
    max_daily_change: null,
    stock: null,
    season_end: null,
    updated_at: "2020-01-01T00:00:00.000Z",
  })),
  sales: market.history,
  from: addDays(last, -9),
  horizonDays: 60,
};

describe("backtestInWorker", () => {
  it("reports each day's progress from the thread and returns the report the function gives in process", async () => {
    const progress: BacktestProgress[] = [];
    const report = await backtestInWorker(input, { onProgress: (p) => progress.push(p) });
    expect(report).toEqual(backtest(input));
    expect(progress.map((p) => p.done)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(progress.every((p) => p.total === 10)).toBe(true);
  });

  it("refuses a bad range before starting a thread", () => {
    expect(() => backtestInWorker({ ...input, from: addDays(last, 1) })).toThrow(BacktestError);
    expect(() => backtestInWorker({ ...input, from: market.history[0]?.date ?? "" })).toThrow(
      /no sales before/,
    );
  });

  it("aborts: the promise rejects", async () => {
    const controller = new AbortController();
    const run = backtestInWorker(input, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(run).rejects.toThrow(/abort/i);
  });
});
