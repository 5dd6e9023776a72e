import type { Kysely } from "kysely";

// Each change of a company setting (DESIGN §10): who changed which field from what to what, whether from the CLI
// (`operator`) or the console (`console:<name>`). Values are JSON text, the same on SQLite and PostgreSQL, so a
// later setting of another type (price endings, a list) needs no new column. Rows are only ever inserted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("company_events")
    .addColumn("event_id", "text", (c) => c.primaryKey())
    .addColumn("company_id", "text", (c) => c.notNull().references("companies.company_id"))
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("by", "text", (c) => c.notNull())
    .addColumn("field", "text", (c) => c.notNull())
    .addColumn("old", "text", (c) => c.notNull())
    .addColumn("new", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("company_events_company_at_idx")
    .on("company_events")
    .columns(["company_id", "at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("company_events").ifExists().execute();
}
