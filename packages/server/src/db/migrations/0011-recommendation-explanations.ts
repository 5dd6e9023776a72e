import type { Kysely } from "kysely";

// Each recommendation's explanation (DESIGN §7 `explain=true`) as JSON text, written with the run: a persisted run
// never changes, so it is computed once, when the run is persisted. Null on rows persisted before this migration;
// those read with `explanation: null`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("recommendations").addColumn("explanation", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("recommendations").dropColumn("explanation").execute();
}
