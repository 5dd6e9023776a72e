import type { Kysely } from "kysely";

// Each stored secret-key hash names the pepper that made it, so that a new pepper can be introduced without
// invalidating the keys already issued. A migration cannot know the pepper: the server names the existing rows'
// pepper (its current one) at start-up.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("key_pairs").addColumn("pepper_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("key_pairs").dropColumn("pepper_id").execute();
}
