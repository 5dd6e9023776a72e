import type { Kysely } from "kysely";

// Webhooks (DESIGN.md §7): endpoints the operator registers per partner, one event row per change reported (its
// dedupe key makes recording the same change twice a no-op), and one delivery row per event and endpoint, which
// the dispatchers claim by moving `next_attempt_at` past a lease.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("endpoint_id", "text", (c) => c.primaryKey())
    .addColumn("partner_id", "text", (c) => c.notNull().references("partners.partner_id"))
    .addColumn("url", "text", (c) => c.notNull())
    // JSON array of event types.
    .addColumn("events", "text", (c) => c.notNull())
    // `whsec_` + base64: the signing key itself (HMAC needs it, a hash would not do).
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("removed_at", "text")
    .execute();
  await db.schema
    .createIndex("webhook_endpoints_partner_idx")
    .on("webhook_endpoints")
    .column("partner_id")
    .execute();
  await db.schema
    .createTable("webhook_events")
    .addColumn("event_id", "text", (c) => c.primaryKey())
    .addColumn("dedupe_key", "text", (c) => c.notNull().unique())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("company_id", "text", (c) => c.notNull())
    // The exact body every endpoint receives (and is signed).
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("delivery_id", "text", (c) => c.primaryKey())
    .addColumn("event_id", "text", (c) => c.notNull().references("webhook_events.event_id"))
    .addColumn("endpoint_id", "text", (c) => c.notNull().references("webhook_endpoints.endpoint_id"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("claimed_by", "text")
    .addColumn("last_status", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("delivered_at", "text")
    .addUniqueConstraint("webhook_deliveries_event_endpoint_uq", ["event_id", "endpoint_id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due_idx")
    .on("webhook_deliveries")
    .columns(["status", "next_attempt_at"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_endpoint_idx")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhook_deliveries").ifExists().execute();
  await db.schema.dropTable("webhook_events").ifExists().execute();
  await db.schema.dropTable("webhook_endpoints").ifExists().execute();
}
