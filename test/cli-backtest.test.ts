import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BacktestReportSchema } from "@pricing/engine";
import { COMPLETE_JOURNEY_FILES, createDatabase, sqlitePath } from "@pricing/server";
import Sqlite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, cliOk } from "./http-harness.js";

// `pricing backtest` on a real SQLite data dir holding the committed Complete Journey fixture: 30 products, the
// chain's 364 open days of 2017.
let dataDir: string;

/** Every row of every table of the data dir's database, to show a command wrote nothing. */
function databaseContents(): string {
  const db = new Sqlite(sqlitePath(dataDir), { readonly: true });
  try {
    const tables = db
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .all() as { name: string }[];
    return JSON.stringify(
      tables.map(({ name }) => [name, db.prepare(`select * from "${name}" order by 1`).all()]),
    );
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-backtest-"));
  await cliOk(dataDir, "init");
  await cliOk(dataDir, "company", "create", "--id", "cj", "--name", "Complete Journey", "--currency", "USD");
  await cliOk(
    dataDir,
    "data",
    "import",
    "--company",
    "cj",
    "--products",
    COMPLETE_JOURNEY_FILES.products,
    "--sales",
    COMPLETE_JOURNEY_FILES.sales,
    "--promotions",
    COMPLETE_JOURNEY_FILES.promotions,
  );
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

describe("pricing backtest", () => {
  it("scores Nov-Dec fitted once before it: every held-out row, each product, and writes nothing", async () => {
    const before = databaseContents();
    const res = await cli(dataDir, "backtest", "--company", "cj", "--from", "2017-11-01", "--refit", "once");
    expect(res.code).toBe(0);
    const report = BacktestReportSchema.parse(res.json);
    expect(report).toMatchObject({ company_id: "cj", from: "2017-11-01", to: "2017-12-31", refit: "once" });
    // 61 days less Christmas Day, when the chain is closed, for 30 products.
    expect(report.summary.rows).toBe(60 * 30);
    expect(report.rows).toHaveLength(60 * 30);
    expect(report.products).toHaveLength(30);
    expect(report.products.reduce((n, p) => n + p.rows, 0)).toBe(60 * 30);
    // Each row carries the day's promotion as imported (the share of the product's stores with a display or mailer).
    const promoted = report.rows.filter((r) => r.promoted > 0);
    expect(promoted.length).toBeGreaterThan(0);
    expect(promoted.every((r) => r.promoted <= 1)).toBe(true);
    // The price-aware fit forecasts real sales better than the same-weekday mean of the last 8 weeks.
    expect(report.summary.wape).toBeLessThan(report.summary.baseline_wape ?? 0);
    expect(report.summary.coverage_p10_p90).toBeGreaterThan(0);
    expect(report.summary.coverage_p10_p90).toBeLessThanOrEqual(1);
    for (const row of report.rows) {
      expect(row.expected_units_p10).toBeLessThanOrEqual(row.expected_units);
      expect(row.expected_units).toBeLessThanOrEqual(row.expected_units_p90);
    }
    expect(databaseContents()).toBe(before);
  });

  it("refits daily by default over any range inside the history, and --save stores the report once", async () => {
    const res = await cli(
      dataDir,
      "backtest",
      "--company",
      "cj",
      "--from",
      "2017-06-05",
      "--to",
      "2017-06-11",
      "--save",
    );
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({
      company_id: "cj",
      from: "2017-06-05",
      to: "2017-06-11",
      refit: "daily",
    });
    expect(res.json.summary.rows).toBe(7 * 30);
    expect(res.json.backtest_id).toMatch(/^bt_/);
    const db = createDatabase({ dataDir });
    try {
      const rows = await db.selectFrom("backtests").selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        backtest_id: res.json.backtest_id,
        company_id: "cj",
        by: "operator",
        from_date: "2017-06-05",
        to_date: "2017-06-11",
        refit: "daily",
      });
      expect(JSON.parse(rows[0]?.summary ?? "")).toEqual(res.json.summary);
      expect(JSON.parse(rows[0]?.products ?? "")).toEqual(res.json.products);
    } finally {
      await db.destroy();
    }
  });

  it("rejects bad input on stderr with a non-zero exit and writes nothing", async () => {
    const before = databaseContents();
    const cases: [string[], string][] = [
      [["--company", "nope", "--from", "2017-11-01"], "company_not_found"],
      [["--company", "cj", "--from", "2017-01-01"], "no_history_before"],
      [["--company", "cj", "--from", "2018-02-01", "--save"], "no_sales_in_range"],
      [["--company", "cj", "--from", "2017-12-25", "--to", "2017-12-25"], "no_sales_in_range"],
      [["--company", "cj", "--from", "2017-11-01", "--to", "2017-10-01"], "invalid_range"],
      [["--company", "cj", "--from", "1 Nov 2017"], "invalid_range"],
      [["--company", "cj", "--from", "2017-11-01", "--refit", "weekly"], "validation_error"],
    ];
    for (const [args, code] of cases) {
      const res = await cli(dataDir, "backtest", ...args);
      expect(res.code, args.join(" ")).toBe(1);
      expect(res.stdout).toBe("");
      expect(JSON.parse(res.stderr).error.code, args.join(" ")).toBe(code);
    }
    expect(databaseContents()).toBe(before);
  });
});
