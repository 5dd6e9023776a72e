import type { Kysely } from "kysely";

// Company learning settings (DESIGN §8) and each recommendation's uncertainty. Booleans are integers 0/1, as the
// same on SQLite and PostgreSQL. The recommendation columns stay null on rows persisted before: those runs read
// with nulls, and a persisted run never changes.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("companies")
    .addColumn("exploration", "text", (c) => c.notNull().defaultTo("cautious"))
    .execute();
  await db.schema
    .alterTable("companies")
    .addColumn("auto_approve_updates", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable("companies")
    .addColumn("force_rule", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("recommendations").addColumn("expected_units_p10", "double precision").execute();
  await db.schema.alterTable("recommendations").addColumn("expected_units_p90", "double precision").execute();
  await db.schema.alterTable("recommendations").addColumn("exploratory", "integer").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ["exploratory", "expected_units_p90", "expected_units_p10"]) {
    await db.schema.alterTable("recommendations").dropColumn(column).execute();
  }
  for (const column of ["force_rule", "auto_approve_updates", "exploration"]) {
    await db.schema.alterTable("companies").dropColumn(column).execute();
  }
}
