import type { Kysely } from "kysely";

// One row per partner and Idempotency-Key (DESIGN.md §7): in the database, so every replica sees the same keys.
// A row is in progress (response_status null) while its first request runs, holding the key until lease_until,
// which that request keeps moving on; then it holds the first response until expires_at (24 h after first use).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("partner_id", "text", (c) => c.notNull())
    .addColumn("idempotency_key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("lease_until", "text", (c) => c.notNull())
    .addColumn("response_status", "integer")
    .addColumn("response_headers", "text")
    .addColumn("response_body", "text")
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["partner_id", "idempotency_key"])
    .execute();
  await db.schema
    .createIndex("idempotency_keys_expires_idx")
    .on("idempotency_keys")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("idempotency_keys").ifExists().execute();
}
