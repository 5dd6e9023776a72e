import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Recommendation } from "@pricing/http-adapter";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { createDatabase, type Db } from "../db/database.js";
import { postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "../db/test-postgres.js";
import { createRunsRepository, type NewRun } from "./runs.js";

const pgEnabled = await postgresTestsEnabled();

function rows(dates: string[], products: string[]): Recommendation[] {
  return dates.flatMap((date) =>
    products.map((product_id) => ({
      product_id,
      date,
      price: 10,
      currency: "EUR",
      base_price: 10,
      rule_price: 10,
      expected_units: 1,
      expected_revenue: 10,
      source: "rule" as const,
      model_id: null,
      expected_units_p10: 0,
      expected_units_p90: 3,
      exploratory: false,
      override_id: null,
      lowest_price_30d: date === dates[0] ? null : 9.5,
    })),
  );
}

function nightly(asOf: string, createdAt: string, recs = rows([asOf], ["a", "b"])): NewRun {
  return {
    companyId: "co",
    kind: "nightly",
    asOf,
    createdAt,
    source: "rule",
    modelId: null,
    startDate: asOf,
    endDate: asOf,
    recommendations: recs,
  };
}

for (const dialect of ["sqlite", "postgres"] as const) {
  describe.skipIf(dialect === "postgres" && !pgEnabled)(`runs repository on ${dialect}`, () => {
    let dataDir: string;
    let ctx: ServerContext;
    let admin: Db | undefined;
    const schema = `pricing_runs_${process.pid}_${Date.now()}`;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "pricing-runs-"));
      if (dialect === "postgres") {
        admin = createDatabase({ dataDir, databaseUrl: TEST_PG_URL });
        await sql`create schema ${sql.id(schema)}`.execute(admin);
        ctx = await createServerContext(
          loadConfig({}, { dataDir, databaseUrl: TEST_PG_URL, ...TEST_PG_SECRETS }),
          {
            pgSchema: schema,
          },
        );
      } else {
        ctx = await createServerContext(loadConfig({}, { dataDir }));
      }
      await ctx.repositories.companies.create({
        company_id: "co",
        name: "Co",
        timezone: "UTC",
        currency: "EUR",
      });
    });

    afterAll(async () => {
      await ctx?.close();
      if (admin) {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
        await admin.destroy();
      }
      await rm(dataDir, { recursive: true, force: true });
    });

    it("keeps one nightly run per company and day, even when two inserts race", async () => {
      const store = createRunsRepository(ctx.db);
      const results = await Promise.all([
        store.insert(nightly("2026-01-01", "2026-01-01T02:00:00.000Z"), 10),
        store.insert(nightly("2026-01-01", "2026-01-01T02:00:00.001Z"), 10),
        store.insert(nightly("2026-01-01", "2026-01-01T02:00:00.002Z"), 10),
      ]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      const listed = await store.list("co", 10, 0);
      expect(listed.total).toBe(1);
      expect(await store.recommendations(listed.runs[0]!.run_id, {})).toHaveLength(2);
      // An on-demand run the same day is not limited.
      const onDemand = await store.insert(
        { ...nightly("2026-01-01", "2026-01-01T09:00:00.000Z"), kind: "on_demand" },
        10,
      );
      expect(onDemand?.kind).toBe("on_demand");
    });

    it("writes a run with all its rows or nothing", async () => {
      const store = createRunsRepository(ctx.db);
      const before = await store.list("co", 100, 0);
      // The same (date, product) twice violates the rows' primary key half-way through the insert.
      const broken = nightly("2026-01-02", "2026-01-02T02:00:00.000Z", [
        ...rows(["2026-01-02"], ["a", "b"]),
        ...rows(["2026-01-02"], ["a"]),
      ]);
      await expect(store.insert(broken, 10)).rejects.toThrow();
      expect((await store.list("co", 100, 0)).total).toBe(before.total);
      const orphans = await ctx.db
        .selectFrom("recommendation_days")
        .leftJoin("runs", "runs.run_id", "recommendation_days.run_id")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("runs.run_id", "is", null)
        .executeTakeFirstOrThrow();
      expect(Number(orphans.n)).toBe(0);
    });

    it("selects by recency, filters dates inclusively and keeps only the newest runs", async () => {
      const store = createRunsRepository(ctx.db);
      for (const day of ["03", "04", "05", "06"]) {
        const asOf = `2026-01-${day}`;
        await store.insert(
          nightly(
            asOf,
            `${asOf}T02:00:00.000Z`,
            rows([asOf, `2026-01-${Number(day) + 1}`.replace(/-(\d)$/, "-0$1"), "2026-01-31"], ["b", "a"]),
          ),
          3,
        );
      }
      const listed = await store.list("co", 100, 0);
      // Three nightly runs kept; the first test's on-demand run is counted apart and stays.
      expect(listed.total).toBe(4);
      expect(listed.runs.map((r) => [r.as_of, r.kind, r.runs_ago])).toEqual([
        ["2026-01-06", "nightly", 0],
        ["2026-01-05", "nightly", 1],
        ["2026-01-04", "nightly", 2],
        ["2026-01-01", "on_demand", 3],
      ]);
      expect((await store.atOffset("co", 1))?.as_of).toBe("2026-01-05");
      expect(await store.atOffset("co", 4)).toBeUndefined();
      const newest = listed.runs[0]!;
      const filtered = await store.recommendations(newest.run_id, {
        startDate: "2026-01-06",
        endDate: "2026-01-07",
      });
      expect(filtered.map((r) => `${r.date}/${r.product_id}`)).toEqual([
        "2026-01-06/a",
        "2026-01-06/b",
        "2026-01-07/a",
        "2026-01-07/b",
      ]);
      const one = await store.recommendations(newest.run_id, { productId: "b", startDate: "2026-01-31" });
      expect(one).toHaveLength(1);
    });

    it("stores each item's p10/p90 and exploratory", async () => {
      const store = createRunsRepository(ctx.db);
      const items = rows(["2026-03-01"], ["a", "b"]).map((r, i) => ({ ...r, exploratory: i === 1 }));
      const run = await store.insert(
        { ...nightly("2026-03-01", "2026-03-01T02:00:00.000Z"), recommendations: items },
        100,
      );
      expect(await store.recommendations(run?.run_id ?? "", {})).toEqual(items);
      // Rows persisted before migration 0005 (nulls): 0019-recommendation-days.test.ts.
    });

    it("stores each item's explanation and reads it only when asked", async () => {
      const store = createRunsRepository(ctx.db);
      const items = rows(["2026-03-02"], ["a", "b"]).map((r, i) => ({
        ...r,
        explanation: {
          rule_price: 9.87 + i,
          weekday_index: 1.0625,
          stock_cover_days: i === 0 ? null : 12.5,
          elasticity: 1.2345,
          elasticity_se: 0.1,
          observed_price_range: [8.5, 11.25] as [number, number],
          binding: i === 0 ? ("max_daily_change" as const) : null,
        },
      }));
      const run = await store.insert(
        { ...nightly("2026-03-02", "2026-03-02T02:00:00.000Z"), recommendations: items },
        100,
      );
      const id = run?.run_id ?? "";
      expect(await store.recommendations(id, { explain: true })).toEqual(items);
      // Without `explain` the items have no `explanation` key at all.
      const plain = await store.recommendations(id, {});
      expect(plain).toEqual(items.map(({ explanation: _, ...r }) => r));
      expect(plain.every((r) => !("explanation" in r))).toBe(true);
      // Rows persisted before migration 0011 (null): 0019-recommendation-days.test.ts.
    });

    it("counts nightly and on-demand runs apart: computes never delete today's nightly run", async () => {
      const store = createRunsRepository(ctx.db);
      const today = await store.insert(nightly("2026-02-01", "2026-02-01T02:00:00.000Z"), 3);
      for (let i = 0; i < 4; i++) {
        await store.insert({ ...nightly("2026-02-01", `2026-02-01T1${i}:00:00.000Z`), kind: "on_demand" }, 2);
      }
      expect((await store.nightlyExists("co", "2026-02-01"))?.run_id).toBe(today?.run_id);
      const listed = await store.list("co", 100, 0);
      const onDemand = listed.runs.filter((r) => r.kind === "on_demand");
      expect(onDemand.map((r) => r.created_at)).toEqual([
        "2026-02-01T13:00:00.000Z",
        "2026-02-01T12:00:00.000Z",
      ]);
      expect(listed.runs.filter((r) => r.kind === "nightly").length).toBeGreaterThanOrEqual(1);
    });

    it("writes every column back exactly, whatever the text holds", async () => {
      const store = createRunsRepository(ctx.db);
      // PostgreSQL receives a run's rows as one JSON document: quotes, backslashes, commas, braces, the text NULL,
      // non-ASCII, nulls and each item's JSON explanation must come back as written.
      const awkward = [
        'quote"d',
        "back\\slash",
        "com,ma",
        "{brace}",
        "NULL",
        "na\u00efve \u20ac",
        " spaced ",
      ];
      const items = rows(["2026-03-03", "2026-03-04"], awkward).map((r, i) => ({
        ...r,
        price: 1.23 + i / 7,
        exploratory: i % 3 === 0 ? null : i % 3 === 1,
        expected_units_p10: i % 4 === 0 ? null : 0.5,
        explanation:
          i % 5 === 0
            ? null
            : {
                rule_price: 2 + i / 3,
                weekday_index: 1.0625,
                stock_cover_days: null,
                elasticity: -1.5,
                elasticity_se: 0.1,
                observed_price_range: [1, 3] as [number, number],
                binding: null,
              },
      }));
      const run = await store.insert(
        {
          ...nightly("2026-03-03", "2026-03-03T02:00:00.000Z"),
          recommendations: items,
        },
        100,
      );
      const back = await store.recommendations(run?.run_id ?? "", { explain: true });
      const order = (a: Recommendation, b: Recommendation) =>
        a.date.localeCompare(b.date) ||
        (a.product_id < b.product_id ? -1 : a.product_id > b.product_id ? 1 : 0);
      expect([...back].sort(order)).toEqual([...items].sort(order));
    });
  });
}
