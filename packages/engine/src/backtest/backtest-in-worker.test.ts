import { describe, expect, it } from "vitest";
import { addDays } from "../base/calendar.js";
import { backtest } from "./backtest.js";
import { type BacktestProgress, backtestInWorker } from "./backtest-in-worker.js";
import { BacktestError } from "./backtest-report.js";
import { syntheticCompany } from "./test-support/synthetic-company.js";

const { market, products, last } = syntheticCompany("loose-stock");
const input = { companyId: "c", products, sales: market.history, from: addDays(last, -9), horizonDays: 60 };

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
