import type { WebhookEventType } from "@pricing/http-adapter";
import { PostgresAdapter } from "kysely";
import { ulid } from "ulid";
import type { Db } from "../db/database.js";
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from "../db/schema.js";

/** An endpoint as listed: never its secret. */
export interface WebhookEndpoint {
  endpoint_id: string;
  partner_id: string;
  url: string;
  events: WebhookEventType[];
  created_at: string;
}

export interface NewWebhookEndpoint {
  partnerId: string;
  url: string;
  events: readonly WebhookEventType[];
  secret: string;
  createdAt: string;
}

export interface RecordedEvent {
  eventId: string;
  /** Names the change reported; a second record of the same change is a no-op. */
  dedupeKey: string;
  type: WebhookEventType;
  companyId: string;
  /** The JSON body sent (and signed). */
  payload: string;
  createdAt: string;
}

/** A delivery a dispatcher has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
  url: string;
  secret: string;
  payload: string;
  /** Null when it may be sent; else why not any more (endpoint removed, company unmapped, partner disabled). */
  obsolete: string | null;
}

export interface DeliveryListing {
  delivery_id: string;
  event_id: string;
  type: string;
  company_id: string;
  endpoint_id: string;
  partner_id: string;
  url: string;
  status: WebhookDeliveriesTable["status"];
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export type AttemptOutcome =
  | { status: "delivered"; httpStatus: number }
  | { status: "pending"; nextAttemptAt: string; httpStatus: number | null; error: string | null }
  | { status: "failed"; httpStatus: number | null; error: string };

function toEndpoint(row: Omit<WebhookEndpointsTable, "secret" | "removed_at">): WebhookEndpoint {
  return {
    endpoint_id: row.endpoint_id,
    partner_id: row.partner_id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    created_at: row.created_at,
  };
}

/** Stored error texts are bounded (a receiver's error page is not ours to keep). */
function bounded(text: string | null): string | null {
  return text === null ? null : text.slice(0, 500);
}

/**
 * Webhook endpoints, events and deliveries (migration 0010). Recording an event writes it and one delivery per
 * endpoint subscribed to it in one transaction, keyed by the change it reports, so recording twice is harmless.
 * Dispatchers claim due deliveries with one conditional UPDATE (rows locked with SKIP LOCKED on PostgreSQL), which
 * moves them past a lease and names the claimer: no two dispatchers ever hold the same delivery at once, and a
 * claim whose dispatcher died runs out and is taken again.
 */
export function createWebhooksRepository(db: Db) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

  return {
    async createEndpoint(input: NewWebhookEndpoint): Promise<WebhookEndpoint> {
      const row: WebhookEndpointsTable = {
        endpoint_id: `whe_${ulid()}`,
        partner_id: input.partnerId,
        url: input.url,
        events: JSON.stringify(input.events),
        secret: input.secret,
        created_at: input.createdAt,
        removed_at: null,
      };
      await db.insertInto("webhook_endpoints").values(row).execute();
      return toEndpoint(row);
    },

    async listEndpoints(partnerId?: string): Promise<WebhookEndpoint[]> {
      let q = db
        .selectFrom("webhook_endpoints")
        .select(["endpoint_id", "partner_id", "url", "events", "created_at"])
        .where("removed_at", "is", null);
      if (partnerId !== undefined) q = q.where("partner_id", "=", partnerId);
      return (await q.orderBy("created_at").orderBy("endpoint_id").execute()).map(toEndpoint);
    },

    /**
     * Removes an endpoint (kept, marked removed, for its deliveries' listing); its pending deliveries fail at once.
     * False when there is no such endpoint or it was removed already.
     */
    async removeEndpoint(endpointId: string, now: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .updateTable("webhook_endpoints")
          .set({ removed_at: now })
          .where("endpoint_id", "=", endpointId)
          .where("removed_at", "is", null)
          .executeTakeFirst();
        if (Number(removed.numUpdatedRows) === 0) return false;
        await trx
          .updateTable("webhook_deliveries")
          .set({ status: "failed", last_error: "endpoint removed", claimed_by: null, updated_at: now })
          .where("endpoint_id", "=", endpointId)
          .where("status", "=", "pending")
          .execute();
        return true;
      });
    },

    /**
     * Writes the event and a delivery to every endpoint of every enabled partner mapped to the company that
     * subscribed to its type. Returns the number of deliveries, or null when the change was recorded before.
     */
    async recordEvent(event: RecordedEvent): Promise<number | null> {
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto("webhook_events")
          .values({
            event_id: event.eventId,
            dedupe_key: event.dedupeKey,
            type: event.type,
            company_id: event.companyId,
            payload: event.payload,
            created_at: event.createdAt,
          })
          .onConflict((oc) => oc.column("dedupe_key").doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null;
        const endpoints = await trx
          .selectFrom("webhook_endpoints as e")
          .innerJoin("partner_companies as pc", "pc.partner_id", "e.partner_id")
          .innerJoin("partners as p", "p.partner_id", "e.partner_id")
          .select(["e.endpoint_id", "e.events"])
          .where("pc.company_id", "=", event.companyId)
          .where("e.removed_at", "is", null)
          .where("p.disabled_at", "is", null)
          .execute();
        const subscribed = endpoints.filter((e) => (JSON.parse(e.events) as string[]).includes(event.type));
        if (subscribed.length > 0) {
          await trx
            .insertInto("webhook_deliveries")
            .values(
              subscribed.map((e) => ({
                delivery_id: `whd_${ulid()}`,
                event_id: event.eventId,
                endpoint_id: e.endpoint_id,
                status: "pending" as const,
                attempts: 0,
                next_attempt_at: event.createdAt,
                claimed_by: null,
                last_status: null,
                last_error: null,
                created_at: event.createdAt,
                updated_at: event.createdAt,
                delivered_at: null,
              })),
            )
            .execute();
        }
        return subscribed.length;
      });
    },

    /**
     * Claims up to `limit` deliveries due at `now` for `claimer`: counts the attempt and moves `next_attempt_at`
     * to `leaseUntil`, in one statement, so a concurrent dispatcher skips (PostgreSQL) or no longer matches
     * (SQLite, whose writers take turns) the same rows.
     */
    async claimDue(input: {
      now: string;
      leaseUntil: string;
      claimer: string;
      limit: number;
    }): Promise<ClaimedDelivery[]> {
      const due = (qb: typeof db) => {
        let q = qb
          .selectFrom("webhook_deliveries")
          .select("delivery_id")
          .where("status", "=", "pending")
          .where("next_attempt_at", "<=", input.now)
          .orderBy("next_attempt_at")
          .limit(input.limit);
        if (postgres) q = q.forUpdate().skipLocked();
        return q;
      };
      const claimed = await db
        .updateTable("webhook_deliveries")
        .set((eb) => ({
          claimed_by: input.claimer,
          next_attempt_at: input.leaseUntil,
          attempts: eb("attempts", "+", 1),
          updated_at: input.now,
        }))
        .where("delivery_id", "in", due(db))
        .where("status", "=", "pending")
        .where("next_attempt_at", "<=", input.now)
        .returning("delivery_id")
        .execute();
      if (claimed.length === 0) return [];
      const rows = await db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhook_events as ev", "ev.event_id", "d.event_id")
        .innerJoin("webhook_endpoints as e", "e.endpoint_id", "d.endpoint_id")
        .innerJoin("partners as p", "p.partner_id", "e.partner_id")
        .leftJoin("partner_companies as pc", (join) =>
          join.onRef("pc.partner_id", "=", "e.partner_id").onRef("pc.company_id", "=", "ev.company_id"),
        )
        .select([
          "d.delivery_id",
          "d.event_id",
          "d.endpoint_id",
          "d.attempts",
          "e.url",
          "e.secret",
          "e.removed_at",
          "ev.payload",
          "p.disabled_at",
          "pc.partner_id as mapped_partner",
        ])
        .where(
          "d.delivery_id",
          "in",
          claimed.map((c) => c.delivery_id),
        )
        .where("d.claimed_by", "=", input.claimer)
        .execute();
      return rows.map((r) => ({
        delivery_id: r.delivery_id,
        event_id: r.event_id,
        endpoint_id: r.endpoint_id,
        attempts: Number(r.attempts),
        url: r.url,
        secret: r.secret,
        payload: r.payload,
        obsolete:
          r.removed_at !== null
            ? "endpoint removed"
            : r.disabled_at !== null
              ? "partner disabled"
              : r.mapped_partner === null
                ? "company no longer mapped to the partner"
                : null,
      }));
    },

    /** Records an attempt's outcome, if `claimer` still holds the delivery. */
    async finishAttempt(deliveryId: string, claimer: string, now: string, outcome: AttemptOutcome) {
      await db
        .updateTable("webhook_deliveries")
        .set({
          status: outcome.status,
          claimed_by: null,
          last_status: outcome.httpStatus,
          last_error: outcome.status === "delivered" ? null : bounded(outcome.error),
          updated_at: now,
          ...(outcome.status === "pending" ? { next_attempt_at: outcome.nextAttemptAt } : {}),
          ...(outcome.status === "delivered" ? { delivered_at: now } : {}),
        })
        .where("delivery_id", "=", deliveryId)
        .where("claimed_by", "=", claimer)
        .where("status", "=", "pending")
        .execute();
    },

    /** Gives back a claim without counting it (the dispatcher stopped mid-attempt): due again at once. */
    async release(deliveryId: string, claimer: string, now: string) {
      await db
        .updateTable("webhook_deliveries")
        .set((eb) => ({
          claimed_by: null,
          next_attempt_at: now,
          attempts: eb("attempts", "-", 1),
          updated_at: now,
        }))
        .where("delivery_id", "=", deliveryId)
        .where("claimed_by", "=", claimer)
        .where("status", "=", "pending")
        .execute();
    },

    /** Deliveries, newest first. */
    async listDeliveries(filter: {
      partnerId?: string | undefined;
      endpointId?: string | undefined;
      limit: number;
    }): Promise<DeliveryListing[]> {
      let q = db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhook_events as ev", "ev.event_id", "d.event_id")
        .innerJoin("webhook_endpoints as e", "e.endpoint_id", "d.endpoint_id")
        .select([
          "d.delivery_id",
          "d.event_id",
          "ev.type",
          "ev.company_id",
          "d.endpoint_id",
          "e.partner_id",
          "e.url",
          "d.status",
          "d.attempts",
          "d.last_status",
          "d.last_error",
          "d.next_attempt_at",
          "d.created_at",
          "d.delivered_at",
        ]);
      if (filter.partnerId !== undefined) q = q.where("e.partner_id", "=", filter.partnerId);
      if (filter.endpointId !== undefined) q = q.where("d.endpoint_id", "=", filter.endpointId);
      const rows = await q
        .orderBy("d.created_at", "desc")
        .orderBy("d.delivery_id", "desc")
        .limit(filter.limit)
        .execute();
      return rows.map((r) => ({
        ...r,
        attempts: Number(r.attempts),
        last_status: r.last_status === null ? null : Number(r.last_status),
        next_attempt_at: r.status === "pending" ? r.next_attempt_at : null,
      }));
    },
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
