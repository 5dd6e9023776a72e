import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError, PricingClient, TimeoutError } from "@pricing/client";
import {
  demoScenario,
  loadConfig,
  type RunningServer,
  seedCompanyFromMarket,
  startServer,
} from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliOk } from "./http-harness.js";
import { waitFor } from "./wait-for.js";

// Every client method against the real server and its V2 services, with a company seeded from a synthetic market.
// Training budgets are tiny: this is about the client's calls, not the policy's quality.

const COMPANY = "ops-co";
const TODAY = "2026-03-10";

let dataDir: string;
let server: RunningServer;
let client: PricingClient;

/** The operator CLI, in-process, on the server's data dir. */
const pricing = (...args: string[]) => cliOk(dataDir, ...args);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-client-ops-"));
  const config = loadConfig(
    {},
    {
      dataDir,
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      pricing: { trainSeconds: 1.5, trainHorizonDays: 21, runDays: 14 },
    },
  );
  server = await startServer(config, { clock: () => new Date(`${TODAY}T03:00:00Z`) });
  await seedCompanyFromMarket(server.ctx, {
    companyId: COMPANY,
    name: "Ops Co",
    timezone: "UTC",
    currency: "EUR",
    dir: join(dataDir, "csv"),
    scenario: demoScenario({
      name: COMPANY,
      today: TODAY,
      seed: 11,
      products: 2,
      tightStock: true,
      horizon: 21,
      historyDays: 60,
    }),
  });
  const keys = (await pricing("partner", "create", "--name", "Ops Partner")) as {
    partner_id: string;
    access_key: string;
    secret_key: string;
  };
  await pricing("company", "map", "--partner", keys.partner_id, "--company", COMPANY);
  client = new PricingClient({ baseUrl: server.url, accessKey: keys.access_key, secretKey: keys.secret_key });
});

afterAll(async () => {
  // Closing aborts the train the timeout test abandoned.
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("one method per operation, against the real V2 services", () => {
  it("exchangeToken returns the token response", async () => {
    const token = await client.exchangeToken();
    expect(token).toMatchObject({ token_type: "Bearer", expires_in: 900 });
    expect(token.access_token.split(".")).toHaveLength(3);
  });

  it("reads, computes and lists runs", async () => {
    expect(await client.getModel({ company_id: COMPANY })).toMatchObject({ source: "rule", model_id: null });
    await expect(client.getRecommendations({ company_id: COMPANY })).rejects.toMatchObject({
      name: "ApiError",
      status: 404,
      code: "no_run_at_offset",
    });

    const dry = await client.computeRecommendations({ company_id: COMPANY, dry_run: true });
    expect(dry).toMatchObject({ company_id: COMPANY, persisted: false, run: null, source: "rule" });
    expect(dry.recommendations.length).toBeGreaterThan(0);
    expect((await client.listRuns({ company_id: COMPANY })).total).toBe(0);

    const computed = await client.computeRecommendations({
      company_id: COMPANY,
      start_date: TODAY,
      end_date: "2026-03-16",
    });
    expect(computed.persisted).toBe(true);
    const runs = await client.listRuns({ company_id: COMPANY, limit: 5 });
    expect(runs.total).toBe(1);
    expect(runs.runs[0]).toMatchObject({ run_id: computed.run?.run_id, runs_ago: 0, kind: "on_demand" });

    const read = await client.getRecommendations({
      company_id: COMPANY,
      runs_ago: 0,
      start_date: "2026-03-11",
      end_date: "2026-03-12",
    });
    expect(read.run.run_id).toBe(computed.run?.run_id);
    expect(new Set(read.recommendations.map((r) => r.date))).toEqual(new Set(["2026-03-11", "2026-03-12"]));
    // The typed client sees each item's uncertainty (DESIGN §7): numbers bracketing expected_units, a boolean.
    for (const r of read.recommendations) {
      const p10: number | null = r.expected_units_p10;
      const p90: number | null = r.expected_units_p90;
      const exploratory: boolean | null = r.exploratory;
      expect(p10).toBeLessThanOrEqual(r.expected_units);
      expect(p90).toBeGreaterThanOrEqual(r.expected_units);
      expect(typeof exploratory).toBe("boolean");
    }
  });

  it("trains, refuses a stale promote, promotes, and reports the approved source", async () => {
    const trained = await client.trainModel({ company_id: COMPANY });
    expect(trained).toMatchObject({ company_id: COMPANY, auto_approved: false });
    expect(
      trained.metrics.upliftIntervalPct === null ||
        typeof trained.metrics.upliftIntervalPct?.low === "number",
    ).toBe(true);
    expect(trained.slots.latest).toBe(trained.model_id);

    const stale = await client
      .promoteModel({ company_id: COMPANY, model_id: "mdl_not_the_latest" })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiError);
    expect(stale).toMatchObject({ status: 409, code: "model_id_stale", operation: "promoteModel" });

    const promoted = await client.promoteModel({ company_id: COMPANY, model_id: trained.model_id });
    expect(promoted).toMatchObject({ source: "approved", model_id: trained.model_id });
    expect(await client.getModel({ company_id: COMPANY })).toMatchObject({
      source: "approved",
      model_id: trained.model_id,
      approved: { model_id: trained.model_id },
    });
  });

  it("gives up on a train at its deadline; the server's training_in_progress carries Retry-After", async () => {
    const latestVersion = async () => (await client.getModel({ company_id: COMPANY })).latest?.version ?? 0;
    const before = await latestVersion();
    const started = performance.now();
    const error = await client
      .trainModel({ company_id: COMPANY }, { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ operation: "trainModel", timeoutMs: 200 });
    expect(performance.now() - started).toBeLessThan(1_000);

    // The server keeps training the abandoned request; a second train meanwhile is refused.
    const busy = await client.trainModel({ company_id: COMPANY }).catch((e: unknown) => e);
    expect(busy).toMatchObject({ name: "ApiError", status: 409, code: "training_in_progress" });
    expect((busy as ApiError).retryAfterSeconds).toBeGreaterThan(0);

    // Wait for the abandoned train to land as the new latest, so that the server is idle when it is closed.
    await waitFor(async () => (await latestVersion()) !== before, {
      what: "the abandoned training's model",
      intervalMs: 200,
    });
    expect(await latestVersion()).toBe(before + 1);
  });

  it("trains asynchronously: trainAsync queues (202), waitForOperation follows it to the new artifact", async () => {
    const before = (await client.getModel({ company_id: COMPANY })).latest?.version ?? 0;
    const queued = await client.trainAsync({ company_id: COMPANY, auto_approve: true });
    expect(queued).toMatchObject({ kind: "train", company_id: COMPANY, result: null, error: null });
    expect(queued.operation_id).toMatch(/^op_/);
    expect(["queued", "running"]).toContain(queued.status);

    const busy = await client.trainAsync({ company_id: COMPANY }).catch((e: unknown) => e);
    expect(busy).toMatchObject({ status: 409, code: "training_in_progress" });

    const states: string[] = [];
    const done = await client.waitForOperation(queued.operation_id, {
      intervalMs: 50,
      onUpdate: (op) => states.push(op.status),
    });
    expect(done).toMatchObject({ status: "succeeded", progress: 1, error: null });
    expect(states.at(-1)).toBe("succeeded");
    expect(done.result).toMatchObject({ company_id: COMPANY, version: before + 1, auto_approved: true });
    expect(await client.getModel({ company_id: COMPANY })).toMatchObject({
      source: "approved",
      model_id: done.result?.model_id,
    });
    expect(await client.getOperation(queued.operation_id)).toEqual(done);

    const unknown = await client.getOperation("op_unknown").catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404, code: "operation_not_found", operation: "getOperation" });
  });

  it("cancels a call from the caller's AbortSignal", async () => {
    const controller = new AbortController();
    const pending = client.computeRecommendations(
      { company_id: COMPANY, dry_run: true },
      { signal: controller.signal },
    );
    controller.abort(new Error("partner shut down"));
    await expect(pending).rejects.toThrow("partner shut down");
  });
});
