import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type App,
  buildApp,
  demoScenario,
  issueCredentials,
  loadConfig,
  seedCompanyFromMarket,
} from "@pricing/server";
import {
  createTestSchema,
  postgresTestsEnabled,
  TEST_PG_SECRETS,
  TEST_PG_URL,
} from "@pricing/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, TEST_SETTINGS, type V2Harness } from "./v2-harness.js";

const COMPANY = "idem-co";

describe("Idempotency-Key on the real server (SQLite)", () => {
  let h: V2Harness;
  let keys: { access_key: string; secret_key: string };
  let token: string;

  beforeAll(async () => {
    h = await startV2Harness();
    await h.seedCompany(COMPANY, { products: 2 });
    keys = await h.partner([COMPANY]);
    token = await h.token(keys);
  });
  afterAll(async () => h?.destroy());

  const post = (path: string, body: unknown, key?: string) =>
    fetch(`${h.url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...(key === undefined ? {} : { "idempotency-key": key }),
      },
      body: JSON.stringify(body),
    });

  it("the same train twice with one key trains once and replays the first answer byte for byte", async () => {
    const first = await post("/public/v1/v2/model/train", { company_id: COMPANY }, "train-1");
    const firstBody = await first.text();
    expect(first.status, firstBody).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    // Field order and the default made explicit do not make it another request.
    const again = await post(
      "/public/v1/v2/model/train",
      { auto_approve: false, company_id: COMPANY },
      "train-1",
    );
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(await h.ctx.policies.store.listVersions(COMPANY)).toHaveLength(1);

    const other = await post(
      "/public/v1/v2/model/train",
      { company_id: COMPANY, auto_approve: true },
      "train-1",
    );
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_reused");
    expect(await h.ctx.policies.store.listVersions(COMPANY)).toHaveLength(1);
  });

  it("concurrent duplicates: one trains, the other gets 409 with Retry-After, then the replay", async () => {
    const before = (await h.ctx.policies.store.listVersions(COMPANY)).length;
    const answers = await Promise.all([
      post("/public/v1/v2/model/train", { company_id: COMPANY }, "train-2"),
      post("/public/v1/v2/model/train", { company_id: COMPANY }, "train-2"),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const busy = answers.find((r) => r.status === 409) as Response;
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe(
      "idempotency_key_in_progress",
    );
    expect(Number(busy.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const done = answers.find((r) => r.status === 200) as Response;
    const body = await done.text();
    expect(await h.ctx.policies.store.listVersions(COMPANY)).toHaveLength(before + 1);

    const retry = await post("/public/v1/v2/model/train", { company_id: COMPANY }, "train-2");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(body);
  });

  it("covers compute and promote; a refused request is replayed as refused; the key runs again after 24 h", async () => {
    const compute = { company_id: COMPANY };
    const computed = await post("/v2/recommendations/compute", compute, "compute-1");
    const computedBody = await computed.text();
    expect(computed.status).toBe(200);
    const runs = await h.ctx.repositories.runs.list(COMPANY, 100, 0);
    const replay = await post("/v2/recommendations/compute", compute, "compute-1");
    expect(await replay.text()).toBe(computedBody);
    expect((await h.ctx.repositories.runs.list(COMPANY, 100, 0)).total).toBe(runs.total);

    const stale = await post(
      "/v2/model/promote",
      { company_id: COMPANY, model_id: "mdl_00000000000000000000000000" },
      "p-1",
    );
    expect(stale.status).toBe(409);
    const staleAgain = await post(
      "/v2/model/promote",
      { company_id: COMPANY, model_id: "mdl_00000000000000000000000000" },
      "p-1",
    );
    expect(staleAgain.status).toBe(409);
    expect(staleAgain.headers.get("idempotent-replayed")).toBe("true");

    const start = h.now().toISOString();
    h.setNow(new Date(Date.parse(start) + 24 * 3600_000 + 1000).toISOString());
    try {
      token = await h.token(keys);
      const fresh = await post("/v2/recommendations/compute", compute, "compute-1");
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get("idempotent-replayed")).toBeNull();
      expect((await h.ctx.repositories.runs.list(COMPANY, 100, 0)).total).toBe(runs.total + 1);
      const rows = await h.ctx.db.selectFrom("idempotency_keys").select("expires_at").execute();
      // The claim purged the keys past their 24 h.
      for (const row of rows) expect(row.expires_at > h.now().toISOString()).toBe(true);
    } finally {
      h.setNow(start);
    }
  });
});

const pgEnabled = await postgresTestsEnabled();

describe.skipIf(!pgEnabled)("Idempotency-Key across two replicas on one PostgreSQL", () => {
  let dropSchema: (() => Promise<void>) | undefined;
  let dataDir: string;
  let replicas: App[] = [];
  let token: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-idem-pg-"));
    const { schema, drop } = await createTestSchema("pricing_idem");
    dropSchema = drop;
    const config = loadConfig(
      {},
      { dataDir, databaseUrl: TEST_PG_URL, ...TEST_PG_SECRETS, logLevel: "silent", pricing: TEST_SETTINGS },
    );
    const first = await buildApp(config, { pgSchema: schema });
    replicas = [first, await buildApp(config, { pgSchema: schema, migrate: false })];
    const ctx = first.ctx;
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
    await seedCompanyFromMarket(ctx, {
      companyId: COMPANY,
      name: "Idem",
      timezone: "UTC",
      currency: "EUR",
      dir: join(dataDir, "csv"),
      scenario: demoScenario({
        name: COMPANY,
        today,
        seed: 3,
        products: 2,
        tightStock: true,
        horizon: 21,
        historyDays: 90,
      }),
    });
    const keys = issueCredentials(ctx.pepper);
    const partner = await ctx.repositories.partners.create("PG partner", keys);
    await ctx.repositories.companies.map(partner.partner_id, COMPANY);
    const res = await first.app.inject({
      method: "POST",
      url: "/public/v1/auth/token",
      payload: { access_key: keys.access_key, secret_key: keys.secret_key },
    });
    token = res.json().access_token;
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await dropSchema?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  const train = (replica: App, key: string) =>
    replica.app.inject({
      method: "POST",
      url: "/public/v1/v2/model/train",
      headers: { authorization: `Bearer ${token}`, "idempotency-key": key },
      payload: { company_id: COMPANY },
    });

  it("a duplicate sent to the other replica while the first trains gets 409; afterwards, the replay", async () => {
    const [a, b] = replicas as [App, App];
    const answers = await Promise.all([train(a, "pg-1"), train(b, "pg-1")]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find((r) => r.statusCode === 409)?.json().error.code).toBe("idempotency_key_in_progress");
    const done = answers.find((r) => r.statusCode === 200);
    expect(await a.ctx.policies.store.listVersions(COMPANY)).toHaveLength(1);
    for (const replica of [a, b]) {
      const replay = await train(replica, "pg-1");
      expect(replay.headers["idempotent-replayed"]).toBe("true");
      expect(replay.body).toBe(done?.body);
    }
    const other = await b.app.inject({
      method: "POST",
      url: "/public/v1/v2/model/train",
      headers: { authorization: `Bearer ${token}`, "idempotency-key": "pg-1" },
      payload: { company_id: COMPANY, auto_approve: true },
    });
    expect(other.statusCode).toBe(422);
    expect(await a.ctx.policies.store.listVersions(COMPANY)).toHaveLength(1);
  });
});
