import type { Kysely } from "kysely";

// Disabling a partner revokes its tokens for good: each token carries the generation it was minted in, and a
// disable moves the generation on, so `partner enable` does not bring the old tokens back.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("partners")
    .addColumn("token_generation", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("partners").dropColumn("token_generation").execute();
}
