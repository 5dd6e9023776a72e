import type { Kysely } from "kysely";

// Saved backtest reports (`pricing backtest --save`, DESIGN §9), newest first per company for the console's
// backtests page. `summary` and `products` are the report's JSON (text on both databases); the held-out rows
// are not kept: a report is re-run, not replayed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("backtests")
    .addColumn("backtest_id", "text", (c) => c.primaryKey())
    .addColumn("company_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("by", "text", (c) => c.notNull())
    .addColumn("from_date", "text", (c) => c.notNull())
    .addColumn("to_date", "text", (c) => c.notNull())
    .addColumn("refit", "text", (c) => c.notNull())
    .addColumn("summary", "text", (c) => c.notNull())
    .addColumn("products", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("backtests_company_created_idx")
    .on("backtests")
    .columns(["company_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("backtests").ifExists().execute();
}
