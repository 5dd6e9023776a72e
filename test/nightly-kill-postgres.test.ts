import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresTestsEnabled, TEST_PG_URL } from "@pricing/server/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, PricingProcess, seedCompanies } from "./process-fleet.js";
import { waitFor } from "./wait-for.js";

// Issues 13 and 15 (item 12) with real `pricing worker` processes on PostgreSQL: the nightly batch for 20 companies
// survives kill -9 of one worker and of both, and a SIGTERM while a company's run fails. The cron is today's 00:00
// UTC, a firing no worker was up for (pg-boss skips it), so the batch is the workers' start-up catch-up. The
// companies' jobs are held at their first read of the products (the test locks that table, as a slow database
// would) until a worker is killed in the middle of one; the jobs' expiry is short, so the dead worker's job is
// retried within seconds. The scenarios run side by side, each on its own copy of the seeded database.

const COMPANIES = Array.from({ length: 20 }, (_, i) => `nk-${String(i).padStart(2, "0")}`);
const EXPIRE_SECONDS = 4;
const ENABLED = await postgresTestsEnabled();

let template: { name: string; url: string; drop(): Promise<void> };
const cleanups: (() => Promise<unknown>)[] = [];

function envFor(databaseUrl: string, dataDir: string): NodeJS.ProcessEnv {
  return {
    PRICING_DATABASE_URL: databaseUrl,
    PRICING_DATA_DIR: dataDir,
    PRICING_JWT_SECRET: "jwt-secret-for-the-nightly-kill-test-0123456789",
    PRICING_KEY_PEPPER: "key-pepper-for-the-nightly-kill-test-0123456789",
    PRICING_RUN_DAYS: "7",
    PRICING_BATCH_CRON: "0 0 * * *",
    PRICING_JOB_EXPIRE_SECONDS: String(EXPIRE_SECONDS),
    PRICING_JOB_MAINTENANCE_SECONDS: "1",
    PRICING_JOB_RETRY_DELAY_SECONDS: "1",
    PRICING_JOB_POLL_SECONDS: "0.5",
    PRICING_JOB_SCHEMA: "jobs",
    PRICING_LOG_LEVEL: "info",
  };
}

/** A fresh copy of the seeded database, its own data dir, and a connection to observe and hold it with. */
async function scenario() {
  const database = await createTestDatabase(TEST_PG_URL, "pricing_nk_run", template.name);
  const dataDir = await mkdtemp(join(tmpdir(), "pricing-nk-run-"));
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  const processes: PricingProcess[] = [];
  cleanups.push(async () => {
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await sql.end().catch(() => undefined);
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });
  const env = envFor(database.url, dataDir);
  return {
    sql,
    worker(name: string) {
      const worker = new PricingProcess(name, ["worker", "--concurrency", "1"], env);
      processes.push(worker);
      return worker;
    },
    /** Holds every nightly run at its first read of the products until `release`. */
    async hold() {
      await sql.query("begin");
      await sql.query("lock table products in access exclusive mode");
      return () => sql.query("rollback");
    },
    /** Once a run waits for the held lock, ends its connection, as a failing database would. */
    async failWaiting(): Promise<number> {
      const waiting = `from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
      await waitFor(async () => (await sql.query(`select pid ${waiting}`)).rowCount === 1, {
        what: "a nightly run waiting for the products",
        intervalMs: 100,
      });
      const { rowCount } = await sql.query(`select pg_terminate_backend(pid) ${waiting}`);
      return rowCount ?? 0;
    },
    async nightlyRuns(): Promise<{ company_id: string; n: number }[]> {
      const { rows } = await sql.query(
        `select c.company_id, count(r.run_id)::int as n from companies c
           left join runs r on r.company_id = c.company_id and r.kind = 'nightly'
         group by c.company_id order by 1`,
      );
      return rows;
    },
    async outcomes(): Promise<{ status: string; n: number; companies: number }[]> {
      const { rows } = await sql.query(
        "select status, count(*)::int as n, count(distinct company_id)::int as companies from batch_outcomes group by status",
      );
      return rows;
    },
  };
}

type Scenario = Awaited<ReturnType<typeof scenario>>;

/**
 * Waits for today's nightly run of every company and its recorded outcome (written just after the run), then checks
 * there is exactly one run each and a finished outcome for each.
 */
async function expectOneRunEach(run: Scenario): Promise<void> {
  await waitFor(
    async () =>
      (await run.nightlyRuns()).every((c) => c.n >= 1) &&
      (await run.outcomes()).reduce((n, o) => n + (o.status === "interrupted" ? 0 : o.n), 0) >=
        COMPANIES.length,
    { what: "a nightly run and outcome of every company", timeoutMs: 60_000, intervalMs: 250 },
  );
  expect(await run.nightlyRuns()).toEqual(COMPANIES.map((company_id) => ({ company_id, n: 1 })));
  // Nothing left failed or interrupted, and every company has its outcome: `created`, or `exists` for an attempt
  // that found the run another attempt wrote (seen once, on a heavily loaded machine).
  const outcomes = await run.outcomes();
  expect(outcomes.filter((o) => o.status !== "created" && o.status !== "exists")).toEqual([]);
  const { rows } = await run.sql.query(
    "select count(distinct company_id)::int as n from batch_outcomes where status in ('created', 'exists')",
  );
  expect(rows[0].n).toBe(COMPANIES.length);
}

beforeAll(async () => {
  if (!ENABLED) return;
  template = await createTestDatabase(TEST_PG_URL, "pricing_nk");
  const dataDir = await mkdtemp(join(tmpdir(), "pricing-nk-"));
  try {
    await seedCompanies(envFor(template.url, dataDir), dataDir, COMPANIES, {
      today: new Date().toISOString().slice(0, 10),
      products: 3,
      tightStock: false,
      historyDays: 30,
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 90_000);

afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await template?.drop();
}, 30_000);

describe.runIf(ENABLED).concurrent("the nightly batch on PostgreSQL across dead and stopped workers", () => {
  it("one of two workers killed mid-batch: its job completes on the other; one run per company", async () => {
    const run = await scenario();
    const release = await run.hold();
    const workers = [run.worker("W1"), run.worker("W2")];
    const checks = await Promise.all(workers.map((w) => w.log("nightly catch-up checked")));
    // Both workers looked; the day's jobs were queued once between them.
    expect(checks.map((c) => c.unfinished)).toEqual([COMPANIES.length, COMPANIES.length]);
    expect(checks.reduce((sum, c) => sum + Number(c.queued), 0)).toBe(COMPANIES.length);

    const [victim, started] = await Promise.any(
      workers.map(async (w) => [w, await w.log("nightly company job started")] as const),
    );
    await victim.stop("SIGKILL");
    await release();
    const survivor = workers.find((w) => w !== victim) as PricingProcess;
    const retried = await survivor.log("nightly company job started", { job_id: started.job_id }, 30_000);
    expect(retried).toMatchObject({ company_id: started.company_id, retry: 1 });
    await survivor.log("nightly company job finished", { job_id: started.job_id, status: "created" });
    await expectOneRunEach(run);
  }, 90_000);

  it("both workers killed mid-batch, one restarted: its start-up finishes the day, one run per company", async () => {
    const run = await scenario();
    const release = await run.hold();
    const workers = [run.worker("W1"), run.worker("W2")];
    const inFlight = await Promise.all(workers.map((w) => w.log("nightly company job started")));
    await Promise.all(workers.map((w) => w.stop("SIGKILL")));
    await release();
    expect((await run.nightlyRuns()).filter((c) => c.n > 0)).toEqual([]);

    // The workers may die before their catch-up queued every company: the restart queues exactly the rest.
    const { rows } = await run.sql.query(
      "select count(*)::int as n from jobs.job where name = 'nightly-company'",
    );
    const left = rows[0].n as number;
    const restarted = run.worker("W3");
    expect(await restarted.log("nightly catch-up checked")).toMatchObject({
      unfinished: COMPANIES.length,
      queued: COMPANIES.length - left,
    });
    for (const job of inFlight) {
      await restarted.log("nightly company job finished", { job_id: job.job_id, status: "created" }, 30_000);
    }
    await expectOneRunEach(run);
  }, 90_000);

  it("SIGTERM while a company's run fails: recorded interrupted, its job retried by the next worker", async () => {
    const run = await scenario();
    const release = await run.hold();
    const stopped = run.worker("W1");
    const started = await stopped.log("nightly company job started");
    await stopped.log("worker started");
    stopped.child.kill("SIGTERM");
    await stopped.log("job queue stopping");
    expect(await run.failWaiting()).toBe(1);
    await release();
    expect(await stopped.exited).toBe(0);
    const { rows } = await run.sql.query("select company_id, status, error from batch_outcomes");
    expect(rows).toEqual([
      {
        company_id: started.company_id,
        status: "interrupted",
        error: expect.stringMatching(/^interrupted: the worker is shutting down; /),
      },
    ]);

    const next = run.worker("W2");
    await next.log("nightly company job finished", { job_id: started.job_id, status: "created" }, 30_000);
    await expectOneRunEach(run);
  }, 90_000);
});
