import type { Kysely } from "kysely";
import { sql } from "kysely";

// One row per asynchronous operation (a training, queued or run by any process): what `GET /v2/operations/{id}`
// reads, what a replica waiting on a synchronous training polls, and what keeps one training per company across
// processes (the partial unique index: at most one queued or running training of a company).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("operations")
    .addColumn("operation_id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("company_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("input", "text", (c) => c.notNull())
    .addColumn("progress", "real")
    .addColumn("result", "text")
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .addColumn("model_id", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("operations_one_active_per_company")
    .on("operations")
    .columns(["company_id", "kind"])
    .unique()
    .where(sql.ref("status"), "in", sql`('queued', 'running')`)
    .execute();
  await db.schema
    .createIndex("operations_company_created_idx")
    .on("operations")
    .columns(["company_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("operations").ifExists().execute();
}
