import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyWebhook, type WebhookEvent } from "@pricing/client";
import {
  createServerContext,
  generateWebhookSecret,
  issueCredentials,
  loadConfig,
  type StopWebhookDispatcher,
  startServerWithBatch,
  startWebhookDispatcher,
} from "@pricing/server";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliWithEnv } from "./http-harness.js";
import { startV2Harness, TEST_SETTINGS, type V2Harness } from "./v2-harness.js";
import { waitFor } from "./wait-for.js";
import { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

const A_COMPANY = "hooks-a";
const B_COMPANY = "hooks-b";
const ALLOW_PRIVATE = { PRICING_WEBHOOK_ALLOW_PRIVATE: "true" };
/** Short waits between retries, so the test moves the injected clock by seconds rather than hours. */
const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000];

interface Endpoint {
  endpoint_id: string;
  secret: string;
}

const eventOf = (r: ReceivedWebhook) => JSON.parse(r.body) as WebhookEvent;
const header = (r: ReceivedWebhook, name: string) => String(r.headers[name]);

describe("webhooks on the real server (Standard Webhooks)", () => {
  let h: V2Harness;
  let receiverA: WebhookReceiver;
  let receiverB: WebhookReceiver;
  let endpointA: Endpoint;
  let endpointB: Endpoint;
  let partnerA: string;
  let partnerB: string;
  let tokenA: string;
  let stopDispatcher: StopWebhookDispatcher;

  /**
   * The CLI runs in its own context on the system clock; the server's injected clock then catches up with it, so
   * what the CLI recorded is due for the server's dispatcher.
   */
  const cli = async (env: NodeJS.ProcessEnv, ...args: string[]) => {
    const result = await cliWithEnv(env, h.dataDir, ...args);
    h.setNow(new Date(Math.max(Date.now(), h.now().getTime())).toISOString());
    return result;
  };
  const forA = (type: string) => receiverA.received.filter((r) => eventOf(r).type === type);
  const deliveriesOf = (partnerId: string) =>
    h.ctx.repositories.webhooks.listDeliveries({ partnerId, limit: 100 });

  beforeAll(async () => {
    // The server's clock starts at the real time: receivers check webhook-timestamp against their own clock.
    h = await startV2Harness(new Date().toISOString(), TEST_SETTINGS, { webhookAllowPrivate: true });
    await h.seedCompany(A_COMPANY, { products: 2 });
    await h.seedCompany(B_COMPANY, { products: 2, seed: 9 });
    const a = await h.partner([A_COMPANY]);
    const b = await h.partner([B_COMPANY]);
    partnerA = a.partner_id;
    partnerB = b.partner_id;
    tokenA = await h.token(a);
    receiverA = await startWebhookReceiver();
    receiverB = await startWebhookReceiver();
    stopDispatcher = startWebhookDispatcher(h.ctx, { pollMs: 20, retryDelaysMs: RETRY_DELAYS_MS });
  });
  afterAll(async () => {
    await stopDispatcher?.();
    await receiverA?.close();
    await receiverB?.close();
    await h?.destroy();
  });

  it("refuses a loopback target at `webhook add` unless PRICING_WEBHOOK_ALLOW_PRIVATE=true", async () => {
    const refused = await cli({}, "webhook", "add", "--partner", partnerA, "--url", receiverA.url);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ code: "webhook_target_refused" });
    expect(refused.json.error.message).toMatch(/loopback/);
    const wrongEvents = await cli(
      ALLOW_PRIVATE,
      "webhook",
      "add",
      "--partner",
      partnerA,
      "--url",
      receiverA.url,
      "--events",
      "model.deleted",
    );
    expect(wrongEvents.code).toBe(1);
    expect((await cli({}, "webhook", "list")).json.endpoints).toEqual([]);

    const added = await cli(ALLOW_PRIVATE, "webhook", "add", "--partner", partnerA, "--url", receiverA.url);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json).toMatchObject({ partner_id: partnerA, url: receiverA.url });
    expect(added.json.events).toEqual(["recommendations.updated", "model.trained", "model.promoted"]);
    expect(added.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    endpointA = added.json as Endpoint;
    const addedB = await cli(ALLOW_PRIVATE, "webhook", "add", "--partner", partnerB, "--url", receiverB.url);
    expect(addedB.code, addedB.stderr).toBe(0);
    endpointB = addedB.json as Endpoint;

    const listed = await cli({}, "webhook", "list", "--partner", partnerA);
    expect(listed.json.endpoints).toEqual([
      expect.objectContaining({ endpoint_id: endpointA.endpoint_id, url: receiverA.url }),
    ]);
    expect(listed.stdout).not.toContain(endpointA.secret);
  });

  it("sends recommendations.updated after a nightly batch run by the CLI, signed so the reference library accepts it", async () => {
    const batch = await cli({}, "batch", "run");
    expect(batch.code, batch.stderr).toBe(0);
    const runOf = (company: string) =>
      (batch.json.companies as { company_id: string; run_id: string }[]).find((c) => c.company_id === company)
        ?.run_id;

    await waitFor(() => forA("recommendations.updated").length === 1 && receiverB.received.length === 1, {
      what: "each partner's recommendations.updated",
    });
    const [delivery] = forA("recommendations.updated") as [ReceivedWebhook];
    const event = new Webhook(endpointA.secret).verify(delivery.body, {
      "webhook-id": header(delivery, "webhook-id"),
      "webhook-timestamp": header(delivery, "webhook-timestamp"),
      "webhook-signature": header(delivery, "webhook-signature"),
    }) as WebhookEvent;
    expect(event).toMatchObject({
      type: "recommendations.updated",
      data: { company_id: A_COMPANY, run_id: runOf(A_COMPANY), kind: "nightly", as_of: expect.any(String) },
    });
    expect(header(delivery, "webhook-id")).toMatch(/^msg_[0-9A-Z]{26}$/);
    expect(delivery.headers["content-type"]).toBe("application/json");

    // The client's verifyWebhook agrees, and refuses the body changed by one character.
    expect(verifyWebhook(delivery.headers, delivery.body, endpointA.secret)).toEqual(event);
    const tampered = delivery.body.replace(A_COMPANY, "hooks-x");
    expect(() => verifyWebhook(delivery.headers, tampered, endpointA.secret)).toThrow(/signature/);
    expect(() =>
      new Webhook(endpointA.secret).verify(tampered, delivery.headers as Record<string, string>),
    ).toThrow();
    // Another endpoint's secret does not verify it.
    expect(() => verifyWebhook(delivery.headers, delivery.body, endpointB.secret)).toThrow(/signature/);

    const [forB] = receiverB.received as [ReceivedWebhook];
    expect(verifyWebhook(forB.headers, forB.body, endpointB.secret)).toMatchObject({
      type: "recommendations.updated",
      data: { company_id: B_COMPANY, run_id: runOf(B_COMPANY) },
    });
  });

  it("sends recommendations.updated for a compute, and model.trained and model.promoted after train and promote", async () => {
    const computed = await h.post("/public/v1/v2/recommendations/compute", tokenA, { company_id: A_COMPANY });
    expect(computed.status).toBe(200);
    const { run } = (await computed.json()) as { run: { run_id: string } };
    await waitFor(() => forA("recommendations.updated").length === 2, { what: "the compute's event" });
    expect(eventOf(forA("recommendations.updated")[1] as ReceivedWebhook).data).toMatchObject({
      run_id: run.run_id,
      kind: "on_demand",
    });

    const trained = await h.post("/public/v1/v2/model/train", tokenA, { company_id: A_COMPANY });
    expect(trained.status).toBe(200);
    const train = (await trained.json()) as { model_id: string; version: number };
    await waitFor(() => forA("model.trained").length === 1, { what: "model.trained" });
    const trainedEvent = verifyWebhook(
      (forA("model.trained")[0] as ReceivedWebhook).headers,
      (forA("model.trained")[0] as ReceivedWebhook).body,
      endpointA.secret,
    );
    expect(trainedEvent).toMatchObject({
      type: "model.trained",
      data: { company_id: A_COMPANY, model_id: train.model_id, version: train.version, auto_approved: false },
    });

    // The receiver fails three times; the fourth try, after the backoff, gets the event.
    receiverA.answerNext(500, 503, 500);
    const promoted = await h.post("/public/v1/v2/model/promote", tokenA, {
      company_id: A_COMPANY,
      model_id: train.model_id,
    });
    expect(promoted.status).toBe(200);
    for (const [i, delay] of RETRY_DELAYS_MS.slice(0, 3).entries()) {
      // Recorded: this attempt's answer, and the next one due exactly the backoff later (not while in flight).
      const due = h.now().getTime() + delay;
      await waitFor(
        async () => {
          const [latest] = await deliveriesOf(partnerA);
          return latest?.attempts === i + 1 && Date.parse(latest.next_attempt_at ?? "") === due;
        },
        { what: `attempt ${i + 1} recorded` },
      );
      const [latest] = await deliveriesOf(partnerA);
      expect(latest).toMatchObject({
        type: "model.promoted",
        status: "pending",
        attempts: i + 1,
        last_status: receiverA.received.at(-1)?.answered,
        last_error: expect.stringMatching(/^HTTP 50/),
      });
      expect(forA("model.promoted")).toHaveLength(i + 1);
      h.setNow(new Date(h.now().getTime() + delay).toISOString());
    }
    await waitFor(() => forA("model.promoted").at(-1)?.answered === 200, { what: "the fourth try" });
    const tries = forA("model.promoted");
    expect(tries.map((t) => t.answered)).toEqual([500, 503, 500, 200]);
    expect(new Set(tries.map((t) => header(t, "webhook-id"))).size).toBe(1);
    expect(verifyWebhook(tries[3]!.headers, tries[3]!.body, endpointA.secret)).toMatchObject({
      type: "model.promoted",
      data: { company_id: A_COMPANY, model_id: train.model_id, action: "promote", previous_model_id: null },
    });
    await waitFor(async () => (await deliveriesOf(partnerA))[0]?.status === "delivered", {
      what: "delivered",
    });
  });

  it("lists deliveries with `webhook deliveries`; the other partner received only its own company's event", async () => {
    const listed = await cli({}, "webhook", "deliveries", "--partner", partnerA);
    expect(listed.code, listed.stderr).toBe(0);
    const deliveries = listed.json.deliveries as {
      type: string;
      status: string;
      attempts: number;
      last_status: number;
    }[];
    expect(deliveries.map((d) => [d.type, d.status, d.attempts, d.last_status])).toEqual([
      ["model.promoted", "delivered", 4, 200],
      ["model.trained", "delivered", 1, 200],
      ["recommendations.updated", "delivered", 1, 200],
      ["recommendations.updated", "delivered", 1, 200],
    ]);
    const human = await cli({}, "webhook", "deliveries", "--endpoint", endpointB.endpoint_id);
    expect(human.json.deliveries).toHaveLength(1);

    expect(receiverB.received.map((r) => eventOf(r).data.company_id)).toEqual([B_COMPANY]);
    expect(receiverA.received.every((r) => eventOf(r).data.company_id === A_COMPANY)).toBe(true);
  });

  it("`webhook remove` stops deliveries to the endpoint", async () => {
    const removed = await cli({}, "webhook", "remove", endpointB.endpoint_id);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await cli({}, "webhook", "remove", endpointB.endpoint_id)).code).toBe(1);
    const batch = await cli({}, "batch", "run", "--company", B_COMPANY);
    expect(batch.code).toBe(0);
    const computed = await h.post("/public/v1/v2/recommendations/compute", tokenA, { company_id: A_COMPANY });
    expect(computed.status).toBe(200);
    await waitFor(() => forA("recommendations.updated").length === 3, { what: "A's next event" });
    expect(receiverB.received).toHaveLength(1);
    expect((await cli({}, "webhook", "list")).json.endpoints).toHaveLength(1);
  });
});

describe("`pricing serve` (startServerWithBatch) runs a webhook dispatcher", () => {
  it("delivers an event recorded by any process, and stops with the server", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "pricing-serve-hooks-"));
    const receiver = await startWebhookReceiver();
    const serving = await startServerWithBatch(
      loadConfig({}, { dataDir, port: 0, logLevel: "silent", webhookAllowPrivate: true }),
    );
    try {
      await serving.schedule.caughtUp;
      const ctx = serving.server.ctx;
      const keys = issueCredentials(ctx.pepper);
      const partner = await ctx.repositories.partners.create("Served", {
        access_key: keys.access_key,
        secret_hash: keys.secret_hash,
        pepper_id: keys.pepper_id,
      });
      await ctx.repositories.companies.create({
        company_id: "served",
        name: "S",
        timezone: "UTC",
        currency: "EUR",
      });
      await ctx.repositories.companies.map(partner.partner_id, "served");
      const secret = generateWebhookSecret();
      await ctx.repositories.webhooks.createEndpoint({
        partnerId: partner.partner_id,
        url: receiver.url,
        events: ["model.promoted"],
        secret,
        createdAt: new Date().toISOString(),
      });
      // Recorded by another context over the same database, as a CLI command would: the server's poll finds it.
      const other = await createServerContext(serving.server.ctx.config, { migrate: false });
      try {
        await other.webhooks.record([
          {
            dedupeKey: "served:promoted",
            companyId: "served",
            body: {
              type: "model.promoted",
              timestamp: new Date().toISOString(),
              data: {
                company_id: "served",
                model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
                version: 1,
                approved_at: new Date().toISOString(),
                previous_model_id: null,
                action: "promote",
              },
            },
          },
        ]);
      } finally {
        await other.close();
      }
      await waitFor(() => receiver.received.length === 1, { what: "the served dispatcher's delivery" });
      const [delivery] = receiver.received as [ReceivedWebhook];
      expect(verifyWebhook(delivery.headers, delivery.body, secret).type).toBe("model.promoted");
    } finally {
      await serving.close();
      await receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
