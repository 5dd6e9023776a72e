import type { Kysely } from "kysely";

// One row per company per nightly batch attempt: what happened, so that a failure is recorded and visible in
// `pricing batch status` without stopping the other companies.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("batch_outcomes")
    .addColumn("batch_id", "text", (c) => c.notNull())
    .addColumn("company_id", "text", (c) => c.notNull())
    .addColumn("as_of", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("run_id", "text")
    .addColumn("error", "text")
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("finished_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("batch_outcomes_pk", ["batch_id", "company_id"])
    .execute();
  await db.schema
    .createIndex("batch_outcomes_finished_idx")
    .on("batch_outcomes")
    .columns(["finished_at", "batch_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("batch_outcomes").ifExists().execute();
}
