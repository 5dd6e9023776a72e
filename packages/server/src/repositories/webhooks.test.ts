import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Db } from "../db/database.js";
import { migrateToLatest } from "../db/migrate.js";
import { createTestSchema, postgresTestsEnabled, TEST_PG_URL } from "../db/test-postgres.js";
import { createWebhooksRepository } from "./webhooks.js";

const T0 = "2026-03-10T03:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

function contract(open: () => Promise<Db>) {
  let db: Db;
  beforeAll(async () => {
    db = await open();
    await migrateToLatest(db);
    for (const partner_id of ["ptr_a", "ptr_b", "ptr_off"]) {
      await db
        .insertInto("partners")
        .values({
          partner_id,
          name: partner_id,
          created_at: T0,
          disabled_at: partner_id === "ptr_off" ? T0 : null,
          token_generation: 0,
        })
        .execute();
    }
    await db
      .insertInto("companies")
      .values({ company_id: "co", name: "co", timezone: "UTC", currency: "EUR", created_at: T0 })
      .execute();
    for (const partner_id of ["ptr_a", "ptr_off"]) {
      await db
        .insertInto("partner_companies")
        .values({ partner_id, company_id: "co", created_at: T0 })
        .execute();
    }
  });
  afterAll(async () => db?.destroy());

  const event = (key: string, type: "model.trained" | "model.promoted" = "model.trained") => ({
    eventId: `msg_${key}`,
    dedupeKey: key,
    type,
    companyId: "co",
    payload: "{}",
    createdAt: at(0),
  });

  it("records one delivery per subscribed endpoint of an enabled partner mapped to the company, once", async () => {
    const hooks = createWebhooksRepository(db);
    const endpoint = (partnerId: string, events: ("model.trained" | "model.promoted")[]) =>
      hooks.createEndpoint({
        partnerId,
        url: `https://${partnerId}.example/`,
        events,
        secret: "whsec_AAAA",
        createdAt: T0,
      });
    const a = await endpoint("ptr_a", ["model.trained"]);
    await endpoint("ptr_a", ["model.promoted"]);
    await endpoint("ptr_b", ["model.trained"]); // not mapped to the company
    await endpoint("ptr_off", ["model.trained"]); // disabled partner
    expect(await hooks.recordEvent(event("e1"))).toBe(1);
    expect(await hooks.recordEvent(event("e1"))).toBeNull();
    const listed = await hooks.listDeliveries({ limit: 10 });
    expect(listed.map((d) => [d.endpoint_id, d.status, d.attempts])).toEqual([[a.endpoint_id, "pending", 0]]);
    expect(await hooks.listEndpoints("ptr_a")).toHaveLength(2);
    expect(JSON.stringify(await hooks.listEndpoints())).not.toContain("whsec_");
  });

  it("claims a due delivery for one claimer at a time; a claim that outlived its lease is taken again", async () => {
    const hooks = createWebhooksRepository(db);
    const claim = (claimer: string, seconds: number) =>
      hooks.claimDue({ now: at(seconds), leaseUntil: at(seconds + 70), claimer, limit: 10 });
    const [one, two] = await Promise.all([claim("d1", 1), claim("d2", 1)]);
    expect([...(one ?? []), ...(two ?? [])]).toHaveLength(1);
    const holder = one?.length === 1 ? "d1" : "d2";
    const [held] = [...(one ?? []), ...(two ?? [])];
    expect(held).toMatchObject({ attempts: 1, obsolete: null, secret: "whsec_AAAA" });
    expect(await claim("d3", 60)).toEqual([]);
    // The holder died: after the lease another dispatcher takes it, and the dead one can no longer finish it.
    const [retaken] = await claim("d3", 72);
    expect(retaken).toMatchObject({ delivery_id: held?.delivery_id, attempts: 2 });
    await hooks.finishAttempt(held?.delivery_id ?? "", holder, at(73), {
      status: "delivered",
      httpStatus: 200,
    });
    expect((await hooks.listDeliveries({ limit: 10 }))[0]).toMatchObject({ status: "pending", attempts: 2 });
    await hooks.finishAttempt(held?.delivery_id ?? "", "d3", at(73), {
      status: "pending",
      nextAttemptAt: at(78),
      httpStatus: 500,
      error: "HTTP 500",
    });
    expect(await claim("d4", 77)).toEqual([]);
    const [again] = await claim("d4", 78);
    expect(again?.attempts).toBe(3);
    // Given back without counting (the dispatcher stopped mid-attempt): due at once.
    await hooks.release(again?.delivery_id ?? "", "d4", at(79));
    expect((await claim("d5", 79))[0]?.attempts).toBe(3);
    await hooks.finishAttempt(again?.delivery_id ?? "", "d5", at(80), {
      status: "delivered",
      httpStatus: 204,
    });
    expect((await hooks.listDeliveries({ limit: 10 }))[0]).toMatchObject({
      status: "delivered",
      attempts: 3,
      last_status: 204,
      last_error: null,
      next_attempt_at: null,
      delivered_at: at(80),
    });
  });

  it("removing an endpoint fails its pending deliveries; claims of an unmapped company are obsolete", async () => {
    const hooks = createWebhooksRepository(db);
    expect(await hooks.recordEvent(event("e2", "model.promoted"))).toBe(1);
    expect(await hooks.recordEvent(event("e3"))).toBe(1);
    const promotedEndpoint = (await hooks.listEndpoints("ptr_a")).find((e) =>
      e.events.includes("model.promoted"),
    );
    expect(await hooks.removeEndpoint(promotedEndpoint?.endpoint_id ?? "", at(90))).toBe(true);
    expect(await hooks.removeEndpoint(promotedEndpoint?.endpoint_id ?? "", at(90))).toBe(false);
    await db.deleteFrom("partner_companies").where("partner_id", "=", "ptr_a").execute();
    const claimed = await hooks.claimDue({ now: at(91), leaseUntil: at(161), claimer: "d6", limit: 10 });
    expect(claimed.map((c) => c.obsolete)).toEqual(["company no longer mapped to the partner"]);
    const deliveries = await hooks.listDeliveries({ limit: 10 });
    expect(deliveries.find((d) => d.type === "model.promoted")).toMatchObject({
      status: "failed",
      last_error: "endpoint removed",
    });
  });
}

describe("webhooks repository (SQLite)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-webhooks-repo-"));
  });
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));
  contract(async () => createDatabase({ dataDir }));
});

const pgEnabled = await postgresTestsEnabled();
describe.skipIf(!pgEnabled)("webhooks repository (PostgreSQL)", () => {
  let schema: { schema: string; drop(): Promise<void> } | undefined;
  afterAll(async () => schema?.drop());
  contract(async () => {
    schema = await createTestSchema("webhooks_repo");
    return createDatabase({ dataDir: "unused", databaseUrl: TEST_PG_URL, pgSchema: schema.schema });
  });
});
