/**
 * Scale-out benchmark (DESIGN §6): the same work on one PostgreSQL with 1 and then 2 `pricing worker` processes.
 *
 *   pnpm bench:scale [--companies N] [--products N] [--days N] [--train-companies N] [--train-seconds S]
 *                    [--workers 1,2]
 *
 * For each worker count, on a fresh database: `--train-companies` trainings queued at once through pg-boss (each
 * worker runs one at a time, in its training thread), then one nightly batch for `--companies` companies (the
 * fan-out job and one job per company). Wall time from queueing to the last row; worker start-up is excluded.
 * The defaults run in about three minutes on 2 cores. Needs PostgreSQL (PRICING_TEST_PG_URL or the local test
 * server).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  createServerContext,
  demoScenario,
  loadConfig,
  type ServerContext,
  seedCompanyFromMarket,
  startJobs,
  trainModelAsync,
} from "@pricing/server";
import pg from "pg";
import { markdownTable } from "./markdown-table.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "packages/server/src/cli.ts");
const PG_SERVER = process.env.PRICING_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const { values: args } = parseArgs({
  options: {
    companies: { type: "string", default: "40" },
    products: { type: "string", default: "20" },
    days: { type: "string", default: "30" },
    "train-companies": { type: "string", default: "4" },
    "train-seconds": { type: "string", default: "4" },
    workers: { type: "string", default: "1,2" },
  },
});
const COMPANIES = Number(args.companies);
const PRODUCTS = Number(args.products);
const DAYS = Number(args.days);
const TRAIN_COMPANIES = Math.min(COMPANIES, Number(args["train-companies"]));
const TRAIN_SECONDS = Number(args["train-seconds"]);
const WORKER_COUNTS = String(args.workers).split(",").map(Number);

interface Row {
  workers: number;
  trainings: number;
  trainWall: number;
  batchWall: number;
  batchRows: number;
}

const companyId = (i: number) => `scale-${String(i).padStart(4, "0")}`;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_SERVER });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Resolves when `child` prints a line containing `text`. */
function lineFrom(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes(text)) resolve();
      buffered = buffered.slice(-text.length * 4);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`worker exited (${code}) before "${text}"`)));
  });
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 600_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (let pause = 50; ; pause = Math.min(500, pause * 1.5)) {
    if (await check()) return;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

async function seed(ctx: ServerContext, dataDir: string): Promise<void> {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
  for (let i = 0; i < COMPANIES; i++) {
    await seedCompanyFromMarket(ctx, {
      companyId: companyId(i),
      name: `Company ${i}`,
      timezone: "UTC",
      currency: "EUR",
      dir: path.join(dataDir, "csv"),
      scenario: demoScenario({
        name: companyId(i),
        today,
        seed: 1000 + i,
        products: PRODUCTS,
        tightStock: i % 2 === 0,
        horizon: DAYS,
        historyDays: 42,
      }),
    });
  }
}

async function runWith(workers: number): Promise<Row> {
  const database = `pricing_scale_${Date.now().toString(36)}`;
  await admin((c) => c.query(`create database ${database}`));
  const url = new URL(PG_SERVER);
  url.pathname = `/${database}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-scale-"));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    PRICING_DATABASE_URL: url.toString(),
    // Shared by every process: the file policy store until artifacts live in PostgreSQL.
    PRICING_DATA_DIR: dataDir,
    PRICING_JWT_SECRET: "bench-scale-jwt-secret-0123456789abcdef",
    PRICING_KEY_PEPPER: "bench-scale-key-pepper-0123456789abcdef",
    PRICING_TRAIN_SECONDS: String(TRAIN_SECONDS),
    PRICING_TRAIN_HORIZON_DAYS: String(DAYS),
    PRICING_RUN_DAYS: String(DAYS),
    // Never during the run: the bench queues the batch itself.
    PRICING_BATCH_CRON: "0 0 1 1 *",
    PRICING_JOB_POLL_SECONDS: "0.5",
    PRICING_LOG_LEVEL: "warn",
  };
  const ctx = await createServerContext(loadConfig(env, { dataDir }));
  const children: ChildProcess[] = [];
  try {
    await seed(ctx, dataDir);
    await startJobs(ctx, { concurrency: 0 });
    for (let i = 0; i < workers; i++) {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=@pricing/source", CLI, "worker"],
        {
          cwd: ROOT,
          env: { ...env, PRICING_LOG_LEVEL: "info" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      children.push(child);
    }
    await Promise.all(children.map((c) => lineFrom(c, "worker started")));

    const t0 = performance.now();
    for (let i = 0; i < TRAIN_COMPANIES; i++) {
      await trainModelAsync(ctx, { company_id: companyId(i), auto_approve: true });
    }
    await waitUntil(async () => {
      const rows = await ctx.db
        .selectFrom("operations")
        .select(["status"])
        .where("status", "in", ["queued", "running"])
        .execute();
      return rows.length === 0;
    }, "the trainings");
    const trainWall = (performance.now() - t0) / 1000;
    const failed = await ctx.db.selectFrom("operations").selectAll().where("status", "=", "failed").execute();
    if (failed.length > 0) throw new Error(`${failed.length} trainings failed: ${failed[0]?.error_message}`);

    const t1 = performance.now();
    await ctx.jobs?.enqueueNightlyBatch();
    await waitUntil(async () => {
      const row = await ctx.db
        .selectFrom("batch_outcomes")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n) >= COMPANIES;
    }, "the nightly batch");
    const batchWall = (performance.now() - t1) / 1000;
    const rows = await ctx.db
      .selectFrom("recommendations")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return { workers, trainings: TRAIN_COMPANIES, trainWall, batchWall, batchRows: Number(rows.n) };
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once("exit", r)))),
    );
    await ctx.close();
    await admin((c) => c.query(`drop database if exists ${database} with (force)`));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const workers of WORKER_COUNTS) {
  process.stderr.write(`bench:scale: ${workers} worker(s)...\n`);
  rows.push(await runWith(workers));
}
const base = rows[0];
console.log(
  `\nbench:scale: ${COMPANIES} companies x ${PRODUCTS} products x ${DAYS} days; ${TRAIN_COMPANIES} trainings of ${TRAIN_SECONDS} s budget each\n`,
);
console.log(
  markdownTable(
    [
      "workers",
      "trainings",
      "train wall (s)",
      "trainings/min",
      "batch wall (s)",
      "batch rows/s",
      "speed-up (batch)",
    ],
    rows.map((r) => [
      String(r.workers),
      String(r.trainings),
      r.trainWall.toFixed(1),
      ((r.trainings / r.trainWall) * 60).toFixed(1),
      r.batchWall.toFixed(1),
      (r.batchRows / r.batchWall).toFixed(0),
      base ? `${(base.batchWall / r.batchWall).toFixed(2)}x` : "-",
    ]),
  ),
);
