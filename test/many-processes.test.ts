import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresTestsEnabled, TEST_PG_URL } from "@pricing/server/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliWithEnv } from "./http-harness.js";
import { createTestDatabase, PricingProcess, seedCompanies, startReplica } from "./process-fleet.js";
import { waitFor } from "./wait-for.js";

// DESIGN §6 with real processes on one fresh PostgreSQL database: two API-only replicas (`serve --workers 0`) and
// two `pricing worker` processes. The jobs' expiry is short (config), so the dead worker's training is retried
// within seconds; the nightly cron fires every minute, so the workers' start-up catch-up finds the latest firing
// unfinished and queues the day's batch as soon as they start.

const TODAY = "2026-03-10";
const TRAINED = "mp-train";
const NIGHTLY = ["mp-n1", "mp-n2", "mp-n3", "mp-n4"];
const EXPIRE_SECONDS = 8;

let dataDir: string;
let database: { url: string; drop(): Promise<void> };
let env: NodeJS.ProcessEnv;
let a: { process: PricingProcess; url: string };
let b: { process: PricingProcess; url: string };
let workers: PricingProcess[] = [];
let keys: { access_key: string; secret_key: string };
let sql: pg.Client;

async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/public/v1/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ access_key: keys.access_key, secret_key: keys.secret_key }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(
  url: string,
  bearer: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/public/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

/** `POST /v2/model/train` of the trained company with `Prefer: respond-async`. */
function trainAsync(url: string, bearer: string) {
  return call(url, bearer, "POST", "/v2/model/train", { company_id: TRAINED }, { prefer: "respond-async" });
}

async function operation(url: string, bearer: string, id: string) {
  return (await call(url, bearer, "GET", `/v2/operations/${id}`)).json as {
    status: string;
    result: { model_id: string; version: number } | null;
    error: unknown;
  };
}

const ENABLED = await postgresTestsEnabled();

beforeAll(async () => {
  if (!ENABLED) return;
  dataDir = await mkdtemp(join(tmpdir(), "pricing-many-"));
  database = await createTestDatabase(TEST_PG_URL, "pricing_many");
  env = {
    PRICING_DATABASE_URL: database.url,
    // One data dir for every process: the file policy store is shared (and process-safe) until artifacts live in
    // PostgreSQL.
    PRICING_DATA_DIR: dataDir,
    PRICING_JWT_SECRET: "jwt-secret-for-the-many-processes-test-0123456789",
    PRICING_KEY_PEPPER: "key-pepper-for-the-many-processes-test-0123456789",
    PRICING_TRAIN_SECONDS: "3",
    PRICING_TRAIN_HORIZON_DAYS: "14",
    PRICING_RUN_DAYS: "7",
    PRICING_BATCH_CRON: "* * * * *",
    PRICING_JOB_EXPIRE_SECONDS: String(EXPIRE_SECONDS),
    PRICING_JOB_MAINTENANCE_SECONDS: "1",
    PRICING_JOB_RETRY_DELAY_SECONDS: "1",
    PRICING_JOB_POLL_SECONDS: "0.5",
    PRICING_JOB_SCHEMA: "jobs",
    PRICING_LOG_LEVEL: "info",
  };
  await seedCompanies(env, dataDir, [TRAINED, ...NIGHTLY], {
    today: TODAY,
    products: 2,
    tightStock: true,
    horizon: 14,
    historyDays: 40,
  });
  const created = await cliWithEnv(env, dataDir, "partner", "create", "--name", "Fleet");
  keys = created.json as { access_key: string; secret_key: string; partner_id: string };
  const partnerId = (created.json as { partner_id: string }).partner_id;
  for (const company of [TRAINED, ...NIGHTLY]) {
    const mapped = await cliWithEnv(
      env,
      dataDir,
      "company",
      "map",
      "--partner",
      partnerId,
      "--company",
      company,
    );
    expect(mapped.code, mapped.stderr).toBe(0);
  }
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  [a, b] = await Promise.all([
    startReplica("A", env, "--workers", "0"),
    startReplica("B", env, "--workers", "0"),
  ]);
  workers = [
    new PricingProcess("W1", ["worker", "--concurrency", "1"], env),
    new PricingProcess("W2", ["worker", "--concurrency", "1"], env),
  ];
  await Promise.all(workers.map((w) => w.log("worker started")));
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.process.stop(), b?.process.stop(), ...workers.map((w) => w.stop())]);
  await sql?.end().catch(() => undefined);
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe.runIf(ENABLED)("two API replicas and two workers on one PostgreSQL", () => {
  it("runs the nightly batch once across the workers: exactly one nightly run per company", async () => {
    // A job records its outcome after its run commits: wait for both, or a slow last job is counted half-done.
    await waitFor(
      async () => {
        const { rows } = await sql.query(
          `select (select count(*)::int from runs where kind = 'nightly') as runs,
                  (select count(distinct company_id)::int from batch_outcomes where status = 'created') as outcomes`,
        );
        return rows[0].runs >= NIGHTLY.length + 1 && rows[0].outcomes >= NIGHTLY.length + 1;
      },
      { what: "a nightly run and its outcome for every company", timeoutMs: 60_000, intervalMs: 250 },
    );
    const { rows: runs } = await sql.query(
      "select company_id, count(*)::int as n from runs where kind = 'nightly' group by company_id order by 1",
    );
    expect(runs).toEqual([TRAINED, ...NIGHTLY].sort().map((company_id) => ({ company_id, n: 1 })));
    const { rows: created } = await sql.query(
      "select company_id, count(*)::int as n, count(distinct batch_id)::int as batches from batch_outcomes where status = 'created' group by company_id",
    );
    expect(created).toHaveLength(NIGHTLY.length + 1);
    for (const row of created) expect(row).toMatchObject({ n: 1, batches: 1 });
    // Both workers checked the latest firing at start; a firing's jobs are queued once between them (or by the
    // cron's fan-out of that firing, which uses the same job ids).
    const checks = workers.flatMap((w) => w.logs("nightly catch-up checked"));
    expect(checks).toHaveLength(2);
    for (const firing of new Set(checks.map((c) => c.firing))) {
      const queued = checks.filter((c) => c.firing === firing).reduce((n, c) => n + Number(c.queued), 0);
      expect(queued).toBeLessThanOrEqual(NIGHTLY.length + 1);
    }
  }, 70_000);

  it("trains through A (the replica waits for a worker); B reports it, and a token from A works on B", async () => {
    const bearer = await token(a.url);
    const trained = await call(a.url, bearer, "POST", "/v2/model/train", { company_id: TRAINED });
    expect(trained.status, JSON.stringify(trained.json)).toBe(200);
    expect(trained.json).toMatchObject({ company_id: TRAINED, version: 1 });
    const report = await call(b.url, bearer, "GET", `/v2/model?company_id=${TRAINED}`);
    expect(report.status).toBe(200);
    expect(report.json).toMatchObject({
      source: "latest",
      latest: { model_id: trained.json.model_id, version: 1 },
    });
    // One operation, run by a worker (a loaded machine may outlast the short expiry: the retried attempt then
    // finds the operation done, and logs it finished too).
    const ran = workers.flatMap((w) => w.logs("training job finished"));
    expect(new Set(ran.map((l) => l.operation_id)).size).toBe(1);
  }, 60_000);

  it("promotes through B: A reports the model approved", async () => {
    const bearer = await token(b.url);
    const before = await call(a.url, bearer, "GET", `/v2/model?company_id=${TRAINED}`);
    const latest = before.json.latest as { model_id: string; version: number };
    expect(before.json).toMatchObject({ source: "latest", approved: null });
    const promoted = await call(b.url, bearer, "POST", "/v2/model/promote", {
      company_id: TRAINED,
      model_id: latest.model_id,
    });
    expect(promoted.status, JSON.stringify(promoted.json)).toBe(200);
    const onA = await call(a.url, bearer, "GET", `/v2/model?company_id=${TRAINED}`);
    expect(onA.json).toMatchObject({
      source: "approved",
      model_id: latest.model_id,
      approved: { model_id: latest.model_id, version: latest.version },
    });
  }, 30_000);

  it("async through A -> 202; a train through B meanwhile -> 409 with Retry-After; the operation succeeds", async () => {
    const bearer = await token(b.url);
    const queued = await trainAsync(a.url, bearer);
    expect(queued.status).toBe(202);
    expect(queued.headers.get("preference-applied")).toBe("respond-async");
    const location = queued.headers.get("location") ?? "";
    const id = String(queued.json.operation_id);
    expect(location).toBe(`${a.url}/public/v1/v2/operations/${id}`);

    const busy = await call(b.url, bearer, "POST", "/v2/model/train", { company_id: TRAINED });
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ error: { code: "training_in_progress" } });
    expect(Number(busy.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    // The operation is a row: either replica answers for it.
    await waitFor(async () => (await operation(b.url, bearer, id)).status === "succeeded", {
      what: "the async training to succeed",
      timeoutMs: 45_000,
      intervalMs: 250,
    });
    const done = await operation(a.url, bearer, id);
    expect(done.result).toMatchObject({ version: 2 });
    const report = await call(a.url, bearer, "GET", `/v2/model?company_id=${TRAINED}`);
    expect(report.json).toMatchObject({ latest: { model_id: done.result?.model_id, version: 2 } });
  }, 60_000);

  it("kill -9 of the worker mid-training: the other worker finishes it after the expiry, one new version", async () => {
    const bearer = await token(a.url);
    const queued = await trainAsync(a.url, bearer);
    expect(queued.status).toBe(202);
    const id = String(queued.json.operation_id);
    const victim = await Promise.any(
      workers.map(async (w) => {
        await w.log("training job started", { operation_id: id });
        return w;
      }),
    );
    // Mid-training: the operation reports progress from the training thread.
    await waitFor(
      async () =>
        (await sql.query("select progress from operations where operation_id = $1", [id])).rows[0]?.progress >
        0,
      {
        what: "the training to make progress",
        intervalMs: 50,
      },
    );
    const killedAt = performance.now();
    await victim.stop("SIGKILL");
    const survivor = workers.find((w) => w !== victim) as PricingProcess;
    await survivor.log("training job finished", { operation_id: id }, 60_000);
    const recoverySeconds = (performance.now() - killedAt) / 1000;
    process.stdout.write(
      `recovery after kill -9 (expiry ${EXPIRE_SECONDS} s): ${recoverySeconds.toFixed(1)} s\n`,
    );

    const done = await operation(b.url, bearer, id);
    expect(done).toMatchObject({ status: "succeeded", result: { version: 3 } });
    const { rows } = await sql.query("select attempts from operations where operation_id = $1", [id]);
    expect(rows[0].attempts).toBe(2);
    const report = await call(b.url, bearer, "GET", `/v2/model?company_id=${TRAINED}`);
    expect(report.json).toMatchObject({ latest: { model_id: done.result?.model_id, version: 3 } });
    // Recovery is bounded by the expiry plus a maintenance sweep, a retry delay and a poll, then the training.
    expect(recoverySeconds).toBeGreaterThanOrEqual(EXPIRE_SECONDS - 1);
  }, 90_000);

  it("concurrent synchronous trains through A and B: exactly one 200 and one 409 with Retry-After", async () => {
    const bearer = await token(a.url);
    const results = await Promise.all(
      [a, b].map((replica) => call(replica.url, bearer, "POST", "/v2/model/train", { company_id: TRAINED })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(results.map((r) => r.json))).toEqual([200, 409]);
    const [won, lost] = results[0]?.status === 200 ? results : [...results].reverse();
    expect(won?.json).toMatchObject({ company_id: TRAINED, version: 4 });
    expect(lost?.json).toMatchObject({ error: { code: "training_in_progress" } });
    expect(Number(lost?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const { rows } = await sql.query(
      "select count(*)::int as n from operations where company_id = $1 and status = 'succeeded'",
      [TRAINED],
    );
    expect(rows[0].n).toBe(4);
  }, 60_000);
});
