import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Config,
  demoScenario,
  issueCredentials,
  loadConfig,
  type RunningServer,
  seedCompanyFromMarket,
  startServer,
} from "@pricing/server";
import { postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "@pricing/server/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SETTINGS } from "./v2-harness.js";

const V2 = "/public/v1/v2";

type Json = Record<string, unknown> & {
  model_id?: string;
  version?: number;
  source?: string;
  latest?: { model_id: string; version: number } | null;
  approved?: { model_id: string; version: number } | null;
};

describe.runIf(await postgresTestsEnabled())("two API replicas on one PostgreSQL schema", () => {
  const schema = `pricing_replicas_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Pool({ connectionString: TEST_PG_URL, max: 2 });
  const clock = () => new Date("2026-03-10T03:00:00Z");
  let dataDirs: string[] = [];
  let a: RunningServer;
  let b: RunningServer;

  /** A replica: its own process-local data dir (which must stay unused), the shared database and secrets. */
  async function replica(): Promise<RunningServer> {
    const dataDir = await mkdtemp(join(tmpdir(), "pricing-replica-"));
    dataDirs.push(dataDir);
    const config: Config = loadConfig(
      {},
      {
        dataDir,
        databaseUrl: TEST_PG_URL,
        ...TEST_PG_SECRETS,
        port: 0,
        logLevel: "silent",
        pricing: TEST_SETTINGS,
      },
    );
    return startServer(config, { clock, pgSchema: schema });
  }

  beforeAll(async () => {
    await admin.query(`create schema "${schema}"`);
    a = await replica();
    b = await replica();
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
    dataDirs = [];
  });

  const call = async (
    server: RunningServer,
    method: "GET" | "POST",
    path: string,
    token: string,
    body?: unknown,
  ) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  async function tokenFrom(server: RunningServer, keys: { access_key: string; secret_key: string }) {
    const res = await fetch(`${server.url}/public/v1/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ access_key: keys.access_key, secret_key: keys.secret_key }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it("shares models, versions, slots and tokens: train on A, report and promote on B, versions 1 and 2", async () => {
    // A partner created through A (its key hashed with A's pepper), a company seeded through A.
    const keys = issueCredentials(a.ctx.pepper);
    const partner = await a.ctx.repositories.partners.create("Replica partner", {
      access_key: keys.access_key,
      secret_hash: keys.secret_hash,
      pepper_id: keys.pepper_id,
    });
    await seedCompanyFromMarket(a.ctx, {
      companyId: "shared",
      name: "Shared",
      timezone: "UTC",
      currency: "EUR",
      dir: join(dataDirs[0] ?? tmpdir(), "csv"),
      scenario: demoScenario({
        name: "shared",
        today: "2026-03-10",
        seed: 7,
        products: 3,
        tightStock: true,
        horizon: 21,
        historyDays: 90,
      }),
    });
    await a.ctx.repositories.companies.map(partner.partner_id, "shared");

    // A token minted by A works on B, one minted by B on A (and B verifies keys hashed by A).
    const tokenA = await tokenFrom(a, keys);
    const tokenB = await tokenFrom(b, keys);
    expect((await call(b, "GET", `${V2}/model?company_id=shared`, tokenA)).status).toBe(200);
    expect((await call(a, "GET", `${V2}/model?company_id=shared`, tokenB)).status).toBe(200);

    const first = await call(a, "POST", `${V2}/model/train`, tokenA, { company_id: "shared" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ version: 1, auto_approved: false });

    const onB = await call(b, "GET", `${V2}/model?company_id=shared`, tokenB);
    expect(onB.body).toMatchObject({ source: "latest", model_id: first.body.model_id, approved: null });
    expect(onB.body.latest).toMatchObject({ model_id: first.body.model_id, version: 1 });

    const promoted = await call(b, "POST", `${V2}/model/promote`, tokenB, {
      company_id: "shared",
      model_id: first.body.model_id,
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ source: "approved", model_id: first.body.model_id });
    const onA = await call(a, "GET", `${V2}/model?company_id=shared`, tokenA);
    expect(onA.body).toMatchObject({ source: "approved", model_id: first.body.model_id });

    const second = await call(b, "POST", `${V2}/model/train`, tokenB, { company_id: "shared" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ version: 2 });
    expect((await call(a, "GET", `${V2}/model?company_id=shared`, tokenA)).body.latest).toMatchObject({
      model_id: second.body.model_id,
      version: 2,
    });

    // One store for both: the same versions from either replica, none twice, and nothing in the data dirs.
    const versionsA = (await a.ctx.policies.store.listVersions("shared")).map((r) => [r.version, r.model_id]);
    const versionsB = (await b.ctx.policies.store.listVersions("shared")).map((r) => [r.version, r.model_id]);
    expect(versionsA).toEqual([
      [1, first.body.model_id],
      [2, second.body.model_id],
    ]);
    expect(versionsB).toEqual(versionsA);
    const rows = await admin.query(
      `select version, count(*)::int as n from "${schema}".policy_store_versions where company_id = 'shared' group by version order by version`,
    );
    expect(rows.rows).toEqual([
      { version: 1, n: 1 },
      { version: 2, n: 1 },
    ]);
    const events = await admin.query(
      `select revision, action from "${schema}".policy_store_slot_events where company_id = 'shared' order by revision`,
    );
    expect(events.rows).toEqual([
      { revision: 1, action: "train" },
      { revision: 2, action: "promote" },
      { revision: 3, action: "train" },
    ]);
    for (const dir of dataDirs) expect(readdirSync(dir).filter((f) => f !== "csv")).toEqual([]);
    expect(await a.ctx.policies.store.checkConsistency("shared")).toEqual({ ok: true, problems: [] });
    expect(await b.ctx.policies.store.gc({ dryRun: true })).toMatchObject({ artifacts: [], lock_files: [] });
  }, 120_000);
});
