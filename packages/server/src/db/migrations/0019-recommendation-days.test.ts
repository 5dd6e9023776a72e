import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Recommendation } from "@pricing/http-adapter";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createRunsRepository } from "../../repositories/runs.js";
import { createDatabase, type Db } from "../database.js";
import { migrateTo, migrateToLatest } from "../migrate.js";
import { createTestSchema, postgresTestsEnabled, TEST_PG_URL } from "../test-postgres.js";

const pgEnabled = await postgresTestsEnabled();

/**
 * Per-item rows as runs before 0019 left them: ids that sort differently by UTF-16 and by byte, awkward text,
 * and the nulls of rows written before migrations 0005 (p10/p90/exploratory), 0011 (explanation) and 0018.
 */
const PRODUCTS = ["b", "B", "a", "\uff01", "\u{1f600}", 'quo"te', "na\u00efve \u20ac", "NULL"];
function oldRow(date: string, productId: string, i: number) {
  const old = i % 4 === 0;
  return {
    product_id: productId,
    date,
    price: 1.23 + i / 7,
    currency: "EUR",
    base_price: 10,
    rule_price: 9.5 + i / 3,
    expected_units: 1 / 3 + i,
    expected_revenue: 0.1 + 0.2 + i,
    source: i % 3 === 0 ? "rule" : "approved",
    model_id: i % 3 === 0 ? null : "mdl_1",
    expected_units_p10: old ? null : i / 9,
    expected_units_p90: old ? null : 2 + i / 9,
    exploratory: old ? null : i % 2,
    explanation: old
      ? null
      : JSON.stringify({
          rule_price: 2 + i / 3,
          weekday_index: 1.0625,
          stock_cover_days: i % 2 === 0 ? null : 12.5,
          elasticity: -1.5,
          elasticity_se: 0.1,
          observed_price_range: [1, 3],
          binding: i % 5 === 0 ? "max_price" : null,
        }),
    lowest_price_30d: old ? null : 1.1,
    override_id: i === 5 ? "ovr_1" : null,
  };
}

async function seedOldRuns(db: Db, corrupt = false): Promise<string[]> {
  await migrateTo(db, "0018-printable-prices");
  await sql`insert into companies (company_id, name, timezone, currency, created_at)
    values ('co', 'Co', 'UTC', 'EUR', '2026-01-01T00:00:00.000Z')`.execute(db);
  const runIds = ["run_a", "run_b"];
  for (const [n, runId] of runIds.entries()) {
    const dates = ["2026-01-02", "2026-01-01", "2026-01-03"].slice(n);
    await sql`insert into runs (run_id, company_id, kind, as_of, created_at, source, model_id, start_date,
        end_date, products, recommendation_count)
      values (${runId}, 'co', 'nightly', ${dates[0]}, ${`2026-01-0${n + 1}T02:00:00.000Z`}, 'rule', null,
        '2026-01-01', '2026-01-03', ${PRODUCTS.length}, ${dates.length * PRODUCTS.length})`.execute(db);
    let i = n;
    for (const date of dates) {
      for (const productId of PRODUCTS) {
        const r = oldRow(date, productId, i++);
        const explanation = corrupt && i === 7 ? "{not json" : r.explanation;
        await sql`insert into recommendations (run_id, product_id, date, price, currency, base_price, rule_price,
            expected_units, expected_revenue, source, model_id, expected_units_p10, expected_units_p90,
            exploratory, explanation, lowest_price_30d, override_id)
          values (${runId}, ${r.product_id}, ${r.date}, ${r.price}, ${r.currency}, ${r.base_price},
            ${r.rule_price}, ${r.expected_units}, ${r.expected_revenue}, ${r.source}, ${r.model_id},
            ${r.expected_units_p10}, ${r.expected_units_p90}, ${r.exploratory}, ${explanation},
            ${r.lowest_price_30d}, ${r.override_id})`.execute(db);
      }
    }
  }
  return runIds;
}

/** What the per-item read answered (runs.ts before 0019): by date then product_id in the database's order. */
async function oldRead(db: Db, runId: string, where = sql`true`): Promise<Recommendation[]> {
  const rows = await sql<ReturnType<typeof oldRow>>`select product_id, date, price, currency, base_price,
      rule_price, expected_units, expected_revenue, source, model_id, expected_units_p10, expected_units_p90,
      exploratory, override_id, lowest_price_30d, explanation
    from recommendations where run_id = ${runId} and ${where} order by date, product_id`.execute(db);
  return rows.rows.map(({ explanation, ...rest }) => ({
    ...rest,
    exploratory: rest.exploratory === null ? null : Number(rest.exploratory) === 1,
    explanation: explanation === null ? null : JSON.parse(explanation),
  })) as Recommendation[];
}

const withoutExplanation = (items: Recommendation[]) => items.map(({ explanation: _, ...r }) => r);

for (const dialect of ["sqlite", "postgres"] as const) {
  describe.skipIf(dialect === "postgres" && !pgEnabled)(`migration 0019 on ${dialect}`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });

    async function freshDb(): Promise<Db> {
      const dataDir = await mkdtemp(join(tmpdir(), "pricing-0019-"));
      cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
      if (dialect === "sqlite") {
        const db = createDatabase({ dataDir });
        cleanup.push(() => db.destroy());
        return db;
      }
      const { schema, drop } = await createTestSchema("pricing_0019");
      cleanup.push(drop);
      const db = createDatabase({ dataDir, databaseUrl: TEST_PG_URL, pgSchema: schema });
      cleanup.push(() => db.destroy());
      return db;
    }

    it("converts every run's rows, which then read exactly as before, filters included", async () => {
      const db = await freshDb();
      const runIds = await seedOldRuns(db);
      const before = new Map<string, Recommendation[]>();
      for (const runId of runIds) {
        before.set(`${runId}|all`, await oldRead(db, runId));
        before.set(
          `${runId}|dates`,
          await oldRead(db, runId, sql`date >= '2026-01-02' and date <= '2026-01-02'`),
        );
        before.set(`${runId}|product`, await oldRead(db, runId, sql`product_id = ${"\u{1f600}"}`));
      }
      expect(await migrateToLatest(db)).toEqual({ applied: ["0019-recommendation-days"] });
      if (dialect === "postgres") {
        // lz4 where the server has it (the test server does: PostgreSQL 15 from Debian).
        const compression = await sql<{ attcompression: string }>`select attcompression from pg_attribute
          where attrelid = 'recommendation_days'::regclass and attname in ('items', 'explanations')`.execute(
          db,
        );
        expect(compression.rows.map((r) => r.attcompression)).toEqual(["l", "l"]);
      }
      const runs = createRunsRepository(db);
      for (const runId of runIds) {
        const all = before.get(`${runId}|all`) ?? [];
        expect(all.length).toBeGreaterThan(0);
        // toStrictEqual checks keys too; JSON text checks their order (what the API's bytes are made of).
        const explained = await runs.recommendations(runId, { explain: true });
        expect(explained).toStrictEqual(all);
        expect(JSON.stringify(explained)).toBe(JSON.stringify(all));
        const plain = await runs.recommendations(runId, {});
        expect(JSON.stringify(plain)).toBe(JSON.stringify(withoutExplanation(all)));
        const dates = await runs.recommendations(runId, {
          startDate: "2026-01-02",
          endDate: "2026-01-02",
          explain: true,
        });
        expect(JSON.stringify(dates)).toBe(JSON.stringify(before.get(`${runId}|dates`)));
        const product = await runs.recommendations(runId, { productId: "\u{1f600}", explain: true });
        expect(JSON.stringify(product)).toBe(JSON.stringify(before.get(`${runId}|product`)));
        expect(await runs.recommendations(runId, { productId: "absent" })).toEqual([]);
      }
      // The per-item table is gone; a run's rows go with it (retention deletes, cascades).
      await expect(sql`select count(*) from recommendations`.execute(db)).rejects.toThrow();
      await db.deleteFrom("recommendation_days").where("run_id", "=", "run_a").execute();
      expect(await runs.recommendations("run_a", {})).toEqual([]);
    });

    it("changes nothing when a row fails to convert", async () => {
      const db = await freshDb();
      await seedOldRuns(db, true);
      const rows = await sql<{ n: number }>`select count(*) as n from recommendations`.execute(db);
      await expect(migrateToLatest(db)).rejects.toThrow(/0019-recommendation-days/);
      const after = await sql<{ n: number }>`select count(*) as n from recommendations`.execute(db);
      expect(Number(after.rows[0]?.n)).toBe(Number(rows.rows[0]?.n));
      await expect(sql`select count(*) from recommendation_days`.execute(db)).rejects.toThrow();
    });

    it("goes back down to per-item rows that read as before", async () => {
      const db = await freshDb();
      const [runId = ""] = await seedOldRuns(db);
      const all = await oldRead(db, runId);
      await migrateToLatest(db);
      await migrateTo(db, "0018-printable-prices");
      expect(JSON.stringify(await oldRead(db, runId))).toBe(JSON.stringify(all));
    });
  });
}
