import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createServerContext,
  generateWebhookSecret,
  issueCredentials,
  loadConfig,
  type ServerContext,
  type StopWebhookDispatcher,
  startWebhookDispatcher,
} from "@pricing/server";
import {
  createTestSchema,
  postgresTestsEnabled,
  TEST_PG_SECRETS,
  TEST_PG_URL,
} from "@pricing/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./wait-for.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

const pgEnabled = await postgresTestsEnabled();
const COMPANY = "pg-hooks";
const EVENTS = 60;

describe.skipIf(!pgEnabled)("webhook dispatchers of two processes on one PostgreSQL", () => {
  let dataDir: string;
  let schema: { schema: string; drop(): Promise<void> };
  let contexts: ServerContext[] = [];
  let stops: StopWebhookDispatcher[] = [];
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-pg-hooks-"));
    schema = await createTestSchema("webhooks");
    const config = loadConfig(
      {},
      { dataDir, databaseUrl: TEST_PG_URL, ...TEST_PG_SECRETS, webhookAllowPrivate: true },
    );
    // One migrates, as the first process to start would; the second finds the schema ready.
    contexts.push(await createServerContext(config, { pgSchema: schema.schema }));
    contexts.push(await createServerContext(config, { pgSchema: schema.schema, migrate: false }));
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await Promise.all(stops.map((stop) => stop()));
    await Promise.all(contexts.map((ctx) => ctx.close()));
    await receiver?.close();
    await schema?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    contexts = [];
    stops = [];
  });

  it("deliver each event exactly once, whichever process recorded it", async () => {
    const [first, second] = contexts as [ServerContext, ServerContext];
    const keys = issueCredentials(first.pepper);
    const partner = await first.repositories.partners.create("PG partner", {
      access_key: keys.access_key,
      secret_hash: keys.secret_hash,
      pepper_id: keys.pepper_id,
    });
    await first.repositories.companies.create({
      company_id: COMPANY,
      name: "PG",
      timezone: "UTC",
      currency: "EUR",
    });
    await first.repositories.companies.map(partner.partner_id, COMPANY);
    await first.repositories.webhooks.createEndpoint({
      partnerId: partner.partner_id,
      url: receiver.url,
      events: ["recommendations.updated"],
      secret: generateWebhookSecret(),
      createdAt: new Date().toISOString(),
    });
    // Small claims and a short poll, so both dispatchers keep racing for the same rows.
    stops = contexts.map((ctx) => startWebhookDispatcher(ctx, { pollMs: 5, batchSize: 2 }));

    const event = (i: number) => ({
      dedupeKey: `run:run_pg_${i}`,
      companyId: COMPANY,
      body: {
        type: "recommendations.updated" as const,
        timestamp: new Date().toISOString(),
        data: {
          company_id: COMPANY,
          run_id: `run_pg_${i}`,
          kind: "on_demand" as const,
          as_of: "2026-11-23",
          start_date: "2026-11-23",
          end_date: "2026-11-30",
          source: "rule" as const,
          model_id: null,
        },
      },
    });
    await Promise.all(
      Array.from({ length: EVENTS }, (_, i) => (i % 2 === 0 ? first : second).webhooks.record([event(i)])),
    );
    // Recording a change twice (a retried job) adds nothing.
    await second.webhooks.record([event(0)]);

    await waitFor(
      async () =>
        (await first.repositories.webhooks.listDeliveries({ limit: 1000 })).every(
          (d) => d.status === "delivered",
        ),
      { what: "every delivery delivered" },
    );
    const ids = receiver.received.map((r) => String(r.headers["webhook-id"]));
    expect(new Set(ids).size).toBe(EVENTS);
    expect(ids).toHaveLength(EVENTS);
    const deliveries = await second.repositories.webhooks.listDeliveries({ limit: 1000 });
    expect(deliveries).toHaveLength(EVENTS);
    expect(deliveries.every((d) => d.attempts === 1 && d.last_status === 200)).toBe(true);
  });
});
