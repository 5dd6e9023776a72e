import type { Kysely } from "kysely";

// The process running an operation (`process-owner.ts`): on SQLite no queue notices a training whose process died,
// so the next process to start settles the operations left `running` by an owner that is gone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("operations").addColumn("owner", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("operations").dropColumn("owner").execute();
}
