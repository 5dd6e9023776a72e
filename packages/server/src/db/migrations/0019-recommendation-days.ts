import type { Explanation, Recommendation } from "@pricing/http-adapter";
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { decodeRecommendationDay, encodeRecommendationDays } from "../../repositories/recommendation-days.js";

// A run's recommendations move from one row per item (`recommendations`) to one row per date
// (`recommendation_days`): see repositories/recommendation-days.ts for why and for the format, which this migration
// writes with the repository's own encoder so converted runs read exactly as new ones. All or nothing: PostgreSQL
// runs every migration in a transaction; SQLite (no transactional DDL for Kysely) gets one here.

/** The per-item table's row as the database returns it (PostgreSQL gives float8 as numbers, 0/1 as numbers). */
interface ItemRow {
  product_id: string;
  date: string;
  price: number;
  currency: string;
  base_price: number;
  rule_price: number;
  expected_units: number;
  expected_revenue: number;
  source: Recommendation["source"];
  model_id: string | null;
  expected_units_p10: number | null;
  expected_units_p90: number | null;
  exploratory: number | null;
  override_id: string | null;
  lowest_price_30d: number | null;
  explanation: string | null;
}

/** As the per-item read answered it: nulls where a migration added the column after the row was written. */
function fromItemRow({ exploratory, explanation, ...rest }: ItemRow): Recommendation {
  return {
    ...rest,
    exploratory: exploratory === null ? null : Number(exploratory) === 1,
    explanation: explanation === null ? null : (JSON.parse(explanation) as Explanation),
  };
}

async function allOrNothing(
  db: Kysely<unknown>,
  body: (db: Kysely<unknown>) => Promise<void>,
): Promise<void> {
  if (db.isTransaction) await body(db);
  else await db.transaction().execute(body);
}

/**
 * A day's documents (~30 KB for 100 products) go to TOAST compressed; pglz, PostgreSQL's default, cost 59 ms of
 * backend CPU per 100 x 90 run where lz4 costs 16 (and storing them uncompressed 15, at twice the size). lz4 is
 * there from PostgreSQL 14 when the server was built with it; elsewhere the default stays.
 */
async function compressWithLz4(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ lz4: boolean }>`select 'lz4' = any(enumvals) as lz4 from pg_settings
    where name = 'default_toast_compression'`.execute(db);
  if (!rows[0]?.lz4) return;
  await sql`alter table recommendation_days alter column items set compression lz4,
    alter column explanations set compression lz4`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await allOrNothing(db, async (trx) => {
    await trx.schema
      .createTable("recommendation_days")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.run_id").onDelete("cascade"))
      .addColumn("date", "text", (c) => c.notNull())
      .addColumn("items", "text", (c) => c.notNull())
      .addColumn("explanations", "text")
      .addPrimaryKeyConstraint("recommendation_days_pk", ["run_id", "date"])
      .execute();
    await compressWithLz4(trx);
    const runs = await sql<{ run_id: string }>`select run_id from runs order by run_id`.execute(trx);
    for (const { run_id } of runs.rows) {
      const items = await sql<ItemRow>`select product_id, date, price, currency, base_price, rule_price,
          expected_units, expected_revenue, source, model_id, expected_units_p10, expected_units_p90, exploratory,
          override_id, lowest_price_30d, explanation
        from recommendations where run_id = ${run_id}`.execute(trx);
      for (const day of encodeRecommendationDays(items.rows.map(fromItemRow))) {
        await sql`insert into recommendation_days (run_id, date, items, explanations)
          values (${run_id}, ${day.date}, ${day.items}, ${day.explanations})`.execute(trx);
      }
    }
    await trx.schema.dropTable("recommendations").execute();
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await allOrNothing(db, async (trx) => {
    await trx.schema
      .createTable("recommendations")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.run_id").onDelete("cascade"))
      .addColumn("product_id", "text", (c) => c.notNull())
      .addColumn("date", "text", (c) => c.notNull())
      .addColumn("price", "double precision", (c) => c.notNull())
      .addColumn("currency", "text", (c) => c.notNull())
      .addColumn("base_price", "double precision", (c) => c.notNull())
      .addColumn("rule_price", "double precision", (c) => c.notNull())
      .addColumn("expected_units", "double precision", (c) => c.notNull())
      .addColumn("expected_revenue", "double precision", (c) => c.notNull())
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("model_id", "text")
      .addColumn("expected_units_p10", "double precision")
      .addColumn("expected_units_p90", "double precision")
      .addColumn("exploratory", "integer")
      .addColumn("explanation", "text")
      .addColumn("lowest_price_30d", "double precision")
      .addColumn("override_id", "text")
      .addPrimaryKeyConstraint("recommendations_pk", ["run_id", "date", "product_id"])
      .execute();
    const days = await sql<{ run_id: string; date: string; items: string; explanations: string | null }>`
      select run_id, date, items, explanations from recommendation_days`.execute(trx);
    for (const day of days.rows) {
      for (const r of decodeRecommendationDay(day, true)) {
        await sql`insert into recommendations (run_id, product_id, date, price, currency, base_price, rule_price,
            expected_units, expected_revenue, source, model_id, expected_units_p10, expected_units_p90, exploratory,
            explanation, lowest_price_30d, override_id)
          values (${day.run_id}, ${r.product_id}, ${r.date}, ${r.price}, ${r.currency}, ${r.base_price},
            ${r.rule_price}, ${r.expected_units}, ${r.expected_revenue},
            ${r.source}, ${r.model_id}, ${r.expected_units_p10}, ${r.expected_units_p90},
            ${r.exploratory === null ? null : r.exploratory ? 1 : 0},
            ${r.explanation == null ? null : JSON.stringify(r.explanation)}, ${r.lowest_price_30d},
            ${r.override_id})`.execute(trx);
      }
    }
    await trx.schema.dropTable("recommendation_days").execute();
  });
}
