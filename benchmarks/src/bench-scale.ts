/**
 * Scale-out benchmark (DESIGN §6, issue 13): the nightly batch through the pg-boss queue with 1, then 2
 * `pricing worker` processes, and GET /v2/recommendations on an API replica (`pricing serve --workers 0`) idle and
 * while the batch runs, all on one PostgreSQL database.
 *
 *   pnpm bench:scale [--companies N] [--products N] [--days N] [--workers 1,2] [--quick]
 *                    [--train-seconds S] [--load-seconds S] [--connections N] [--profile DIR] [--concurrency N]
 *
 * Defaults: 1,000 companies x 100 products x 90 days (90 days of history and 90-day runs). `--quick`: 20 x 20 x
 * 30 and 3 s of load (flags given still win). The companies share one catalogue (a seeded synthetic market) and
 * each has its own sales history (its own seed), bulk-inserted straight into a fresh database; one policy is
 * trained on the first company and its artifact copied to every other through the policy store's public API (save
 * and commitTraining with autoApprove: each company gets an approved model of its own id and version). Needs
 * PostgreSQL (PRICING_TEST_PG_URL or the local test server); the database is dropped at the end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { addDays, generateMarket, type Market } from "@pricing/engine";
import {
  createServerContext,
  demoScenario,
  issueCredentials,
  loadConfig,
  type ServerContext,
  startJobs,
  trainModel,
} from "@pricing/server";
import pg from "pg";
import { type LoadResult, loadGenerator, runLoad } from "./load-generator.js";
import { markdownTable } from "./markdown-table.js";
import { CLOCK_TICKS, processSeconds } from "./process-cpu.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "packages/server/src/cli.ts");
const PG_SERVER = process.env.PRICING_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const { values: args } = parseArgs({
  options: {
    companies: { type: "string" },
    products: { type: "string" },
    days: { type: "string" },
    workers: { type: "string", default: "1,2" },
    quick: { type: "boolean", default: false },
    "train-seconds": { type: "string", default: "10" },
    "load-seconds": { type: "string" },
    connections: { type: "string", default: "16" },
    /** Write V8 CPU profiles of every `pricing worker` process (its planning threads included) here. */
    profile: { type: "string" },
    /** Jobs each `pricing worker` runs at once (`PRICING_WORKER_CONCURRENCY`). */
    concurrency: { type: "string", default: "1" },
  },
});
const quick = args.quick;
const COMPANIES = Number(args.companies ?? (quick ? 20 : 1000));
const PRODUCTS = Number(args.products ?? (quick ? 20 : 100));
const DAYS = Number(args.days ?? (quick ? 30 : 90));
const WORKER_COUNTS = String(args.workers).split(",").map(Number);
const TRAIN_SECONDS = Number(args["train-seconds"]);
const LOAD_SECONDS = Number(args["load-seconds"] ?? (quick ? 3 : 10));
const CONNECTIONS = Number(args.connections);
const CONCURRENCY = Number(args.concurrency);
const profileFlags =
  args.profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(args.profile)}`];
for (const [name, value, min] of [
  ["--companies", COMPANIES, 1],
  ["--products", PRODUCTS, 1],
  ["--days", DAYS, 28],
  ["--load-seconds", LOAD_SECONDS, 1],
  ["--connections", CONNECTIONS, 1],
  ["--concurrency", CONCURRENCY, 1],
] as const) {
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
}
if (WORKER_COUNTS.some((w) => !Number.isInteger(w) || w < 1)) throw new Error("--workers: e.g. 1,2");

const companyId = (i: number) => `scale-${String(i).padStart(4, "0")}`;
/** The company GET /v2/recommendations reads; the batch reaches it first, so its new run appears early. */
const LOAD_COMPANY = companyId(0);
const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());

/** A daily cron (UTC) twelve hours from `now`: it does not fire during a run of less than half a day. */
function unusedDailyCron(now: Date): string {
  return `${now.getUTCMinutes()} ${(now.getUTCHours() + 12) % 24} * * *`;
}

// ---------------------------------------------------------------------------------------------------------------
// CPU accounting from /proc: which process used the two cores while the batch ran.

/**
 * CPU seconds of the PostgreSQL backends serving our database (by pid, from pg_stat_activity): the server is shared
 * with other users, whose backends are not ours to count. A backend that exits between two samples is lost; the
 * processes here keep theirs in pools.
 */
async function postgresSeconds(pool: pg.Pool, database: string): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1", [
    database,
  ]);
  return new Map(rows.map((r) => [r.pid, processSeconds(r.pid)]));
}

/** Busy CPU seconds of the whole machine (every core). */
function machineSeconds(): number {
  const cpu =
    readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS;
}

interface CpuSample {
  workers: number;
  /** The workers' main threads: their event loops. */
  workerLoops: number;
  /** Per backend pid. */
  postgres: Map<number, number>;
  api: number;
  bench: number;
  machine: number;
}

interface Cores {
  workers: number;
  workerLoops: number;
  postgres: number;
  api: number;
  bench: number;
  machine: number;
}

async function sampleCpu(
  workerPids: readonly number[],
  apiPid: number,
  pool: pg.Pool,
  database: string,
): Promise<CpuSample> {
  return {
    workers: workerPids.reduce((s, pid) => s + processSeconds(pid), 0),
    workerLoops: workerPids.reduce((s, pid) => s + processSeconds(pid, pid), 0),
    postgres: await postgresSeconds(pool, database),
    api: processSeconds(apiPid),
    bench: processSeconds(process.pid),
    machine: machineSeconds(),
  };
}

/** Cores used on average between two samples. */
function coresUsed(a: CpuSample, b: CpuSample, seconds: number): Cores {
  const per = (key: "workers" | "workerLoops" | "api" | "bench" | "machine") => (b[key] - a[key]) / seconds;
  let postgres = 0;
  for (const [pid, used] of b.postgres) postgres += used - (a.postgres.get(pid) ?? 0);
  return {
    workers: per("workers"),
    workerLoops: per("workerLoops"),
    postgres: postgres / seconds,
    api: per("api"),
    bench: per("bench"),
    machine: per("machine"),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Processes

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
    child.once("exit", (code) => reject(new Error(`process exited (${code}) before "${text}"`)));
  });
}

async function stop(children: readonly ChildProcess[]): Promise<void> {
  const exits = children.map(
    (c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once("exit", resolve))),
  );
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(exits);
}

/** `node --import tsx` directly (not the tsx bin, which forks): the pid we account CPU to is the process. */
function pricing(
  argv: string[],
  env: NodeJS.ProcessEnv,
  stdio: "pipe" | number,
  nodeFlags: readonly string[] = [],
): ChildProcess {
  return spawn(
    process.execPath,
    [...nodeFlags, "--import", "tsx", "--conditions=@pricing/source", CLI, ...argv],
    {
      cwd: ROOT,
      env,
      stdio: ["ignore", stdio, stdio === "pipe" ? "pipe" : "inherit"],
    },
  );
}

async function startApiReplica(
  env: NodeJS.ProcessEnv,
  dataDir: string,
): Promise<{ child: ChildProcess; url: string }> {
  // Its `info` JSON logs go to a file, as in a deployment (a pipe's lag would block pino, see bench-http.ts).
  const logFile = path.join(dataDir, "api.log");
  const logFd = openSync(logFile, "a", 0o600);
  const child = pricing(["serve", "--workers", "0", "--port", "0", "--json"], env, logFd);
  closeSync(logFd);
  const url = await waitUntil(
    async () => /"url":\s*"([^"]+)"/.exec(readFileSync(logFile, "utf8"))?.[1],
    "the API replica",
    60_000,
    () => child.exitCode !== null,
  );
  return { child, url };
}

async function waitUntil<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs: number,
  failed: () => boolean = () => false,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (let pause = 50; ; pause = Math.min(250, pause * 1.5)) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (failed()) throw new Error(`${what}: the process exited`);
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding: one catalogue, a history per company, bulk inserts (one statement per table and company).

function companyMarket(i: number): Market {
  const scenario = demoScenario({
    name: companyId(i),
    today,
    seed: 1,
    products: PRODUCTS,
    tightStock: true,
    horizon: DAYS,
    historyDays: DAYS,
  });
  return generateMarket({ ...scenario, history: { ...scenario.history, seed: 1000 + i } });
}

async function insertCompany(client: pg.PoolClient, i: number, now: string): Promise<number> {
  const id = companyId(i);
  const market = companyMarket(i);
  const seasonEnd = addDays(today, DAYS - 1);
  const p = market.products;
  await client.query("begin");
  await client.query(
    "insert into companies (company_id, name, timezone, currency, created_at) values ($1, $2, 'UTC', 'EUR', $3)",
    [id, `Company ${i}`, now],
  );
  await client.query(
    `insert into products (company_id, product_id, name, currency, base_price, unit_cost, min_price, max_price,
       max_daily_change, stock, season_end, updated_at)
     select $1, product_id, 'Product ' || product_id, 'EUR', base_price, unit_cost, min_price, max_price,
       max_daily_change, stock, case when stock is null then null else $2 end, $3
     from unnest($4::text[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::int[])
       as t(product_id, base_price, unit_cost, min_price, max_price, max_daily_change, stock)`,
    [
      id,
      seasonEnd,
      now,
      p.map((x) => x.productId),
      p.map((x) => x.referencePrice),
      p.map((x) => x.unitCost),
      p.map((x) => x.setup.minPrice),
      p.map((x) => x.setup.maxPrice),
      p.map((x) => x.setup.maxDailyChange),
      p.map((x) => x.setup.stock),
    ],
  );
  const h = market.history;
  await client.query(
    `insert into sales (company_id, product_id, date, price, units_sold, stock_on_hand)
     select $1, * from unnest($2::text[], $3::text[], $4::float8[], $5::int[], $6::int[])`,
    [
      id,
      h.map((r) => r.product_id),
      h.map((r) => r.date),
      h.map((r) => r.price),
      h.map((r) => r.units_sold),
      h.map((r) => r.stock_on_hand),
    ],
  );
  await client.query("commit");
  return h.length;
}

/** Runs `task(i)` for i in [from, to) on `parallel` lanes. */
async function lanes(from: number, to: number, parallel: number, task: (i: number) => Promise<void>) {
  let next = from;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < to) await task(next++);
    }),
  );
}

async function seed(pool: pg.Pool): Promise<number> {
  const now = new Date().toISOString();
  let rows = 0;
  await lanes(0, COMPANIES, 2, async (i) => {
    const client = await pool.connect();
    try {
      const inserted = await insertCompany(client, i, now);
      rows += inserted;
    } finally {
      client.release();
    }
  });
  await pool.query("analyze");
  return rows;
}

/** Every other company gets its own copy of the first company's model, approved. */
async function copyModel(ctx: ServerContext, modelId: string): Promise<void> {
  const store = ctx.policies.store;
  const source = await store.loadArtifact(companyId(0), modelId);
  await lanes(1, COMPANIES, 4, async (i) => {
    const id = companyId(i);
    const saved = await store.save({
      companyId: id,
      manifest: { ...source.manifest, companyId: id },
      weights: source.weights,
    });
    await store.commitTraining({
      companyId: id,
      modelId: saved.model_id,
      autoApprove: true,
      by: "bench-scale",
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The API replica's side

async function post<T>(url: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A fresh token (they last 15 minutes; a full run lasts longer). */
async function token(api: string, key: { access_key: string; secret_key: string }): Promise<string> {
  return (await post<{ access_token: string }>(`${api}/public/v1/auth/token`, key)).access_token;
}

interface Row {
  phase: string;
  workers: number | null;
  batchWall: number | null;
  batchRows: number | null;
  load: LoadResult;
  /** The batch finished before the load's window ended (the figures then mix busy and idle). */
  loadOutlasted: boolean;
  cores: Cores | null;
  loadavg: number;
}

async function main(): Promise<void> {
  const database = `pricing_scale_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_SERVER });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(PG_SERVER);
  url.pathname = `/${database}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-scale-"));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    PRICING_DATABASE_URL: url.toString(),
    PRICING_DATA_DIR: dataDir,
    PRICING_JWT_SECRET: "bench-scale-jwt-secret-0123456789abcdef",
    PRICING_KEY_PEPPER: "bench-scale-key-pepper-0123456789abcdef",
    PRICING_TRAIN_SECONDS: String(TRAIN_SECONDS),
    PRICING_TRAIN_HORIZON_DAYS: String(DAYS),
    PRICING_RUN_DAYS: String(DAYS),
    PRICING_WORKER_CONCURRENCY: String(CONCURRENCY),
    // Never during the run: the bench queues the batch itself, as the schedule's firing does. A daily time half a
    // day away, not a yearly one: pg-boss's timekeeper asks cron-parser for the previous firing every 5 s, and
    // walking back to 1 January took ~1.7 % of a core per worker (profile), which a nightly cron never costs.
    PRICING_BATCH_CRON: unusedDailyCron(new Date()),
    PRICING_LOG_LEVEL: "info",
    // The limiter still runs on every request; its thresholds are raised above what the load sends.
    PRICING_RATE_LIMITS: JSON.stringify({
      tokenPerKey: { max: 1_000_000, windowMs: 60_000 },
      tokenPerAddress: { max: 1_000_000, windowMs: 60_000 },
      dataPerPartner: { max: 1_000_000, windowMs: 60_000 },
    }),
  };
  const ctx = await createServerContext(loadConfig(env, { dataDir }));
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  // pool.end() resolves before its connections have closed; the closing drop database ... with (force) then
  // terminates one, and an unheard pool error would end the process after the tables were printed.
  pool.on("error", () => undefined);
  let api: ChildProcess | undefined;
  let workers: ChildProcess[] = [];
  const note = (text: string) => process.stderr.write(`bench:scale: ${text}\n`);
  try {
    let t = performance.now();
    const salesRows = await seed(pool);
    const seedSeconds = (performance.now() - t) / 1000;
    note(`seeded ${COMPANIES} companies, ${salesRows} sales rows in ${seedSeconds.toFixed(1)} s`);
    t = performance.now();
    const trained = await trainModel(ctx, { company_id: companyId(0), auto_approve: true });
    const trainSeconds = (performance.now() - t) / 1000;
    t = performance.now();
    await copyModel(ctx, trained.model_id);
    const copySeconds = (performance.now() - t) / 1000;
    note(
      `trained one policy in ${trainSeconds.toFixed(1)} s, copied it to ${COMPANIES - 1} companies in ${copySeconds.toFixed(1)} s`,
    );

    const credentials = issueCredentials(ctx.pepper);
    const partner = await ctx.repositories.partners.create("bench-scale", credentials);
    await ctx.repositories.companies.map(partner.partner_id, LOAD_COMPANY);
    const key = { access_key: credentials.access_key, secret_key: credentials.secret_key };
    await startJobs(ctx, { concurrency: 0 });
    const replica = await startApiReplica(env, dataDir);
    api = replica.child;
    const apiPid = api.pid ?? 0;

    // Today's prices of every product: what a shop's integration reads each morning.
    const getUrl = `${replica.url}/v2/recommendations?company_id=${LOAD_COMPANY}&start_date=${today}&end_date=${today}`;
    const load = async (seconds: number) =>
      runLoad({
        url: getUrl,
        headers: { authorization: `Bearer ${await token(replica.url, key)}` },
        connections: CONNECTIONS,
        seconds,
        scratchDir: dataDir,
      });
    // The run the load reads before the batch writes the company's nightly one: a compute on the replica.
    const computeLoadCompany = async () =>
      post(
        `${replica.url}/v2/recommendations/compute`,
        { company_id: LOAD_COMPANY },
        await token(replica.url, key),
      );

    await computeLoadCompany();
    const rows: Row[] = [];
    const sample = (pids: readonly number[]) => sampleCpu(pids, apiPid, pool, database);
    let before = await sample([]);
    const idle = await load(LOAD_SECONDS);
    rows.push({
      phase: "idle",
      workers: null,
      batchWall: null,
      batchRows: null,
      load: idle,
      loadOutlasted: false,
      cores: coresUsed(before, await sample([]), LOAD_SECONDS + 2),
      loadavg: loadavg()[0] ?? 0,
    });

    for (const [round, count] of WORKER_COUNTS.entries()) {
      if (round > 0) {
        // The previous round's runs go, and its nightly jobs (a firing's company jobs have fixed ids, which pg-boss
        // would not queue again); the policies, slots and history stay.
        await pool.query("truncate recommendations, runs, batch_outcomes");
        await pool.query("delete from pgboss.job where name in ('nightly-batch', 'nightly-company')");
        await computeLoadCompany();
      }
      note(`nightly batch with ${count} worker(s)...`);
      // The clock starts with the workers: the first to start queues the missed firing's company jobs (its
      // start-up catch-up), and the batch sent here adds nothing to them (same job ids).
      const t0 = performance.now();
      workers = Array.from({ length: count }, () => pricing(["worker"], env, "pipe", profileFlags));
      await Promise.all(workers.map((w) => lineFrom(w, "worker started")));
      const pids = workers.map((w) => w.pid ?? 0);
      before = await sample(pids);
      await ctx.jobs?.nightlyBatch();
      const during = load(LOAD_SECONDS);
      await waitUntil(
        async () => {
          const { rows: counted } = await pool.query<{ n: number }>(
            "select count(*)::int as n from batch_outcomes",
          );
          return (counted[0]?.n ?? 0) >= COMPANIES;
        },
        "the nightly batch",
        24 * 3600_000,
        () => workers.every((w) => w.exitCode !== null),
      );
      const batchWall = (performance.now() - t0) / 1000;
      const after = await sample(pids);
      const result = await during;
      const loadOutlasted = batchWall < LOAD_SECONDS + 2;
      const { rows: outcome } = await pool.query<{ failed: number; rows: number; runs: number }>(
        `select (select count(*)::int from batch_outcomes where status <> 'created') as failed,
                (select coalesce(sum(recommendation_count), 0)::int from runs where kind = 'nightly') as rows,
                (select count(*)::int from runs where kind = 'nightly') as runs`,
      );
      const o = outcome[0];
      if (!o || o.failed > 0 || o.runs !== COMPANIES) {
        throw new Error(
          `batch: ${o?.runs} nightly runs for ${COMPANIES} companies, ${o?.failed} not created`,
        );
      }
      rows.push({
        phase: "nightly batch",
        workers: count,
        batchWall,
        batchRows: o.rows,
        load: result,
        loadOutlasted,
        cores: coresUsed(before, after, batchWall),
        loadavg: loadavg()[0] ?? 0,
      });
      await stop(workers);
      workers = [];
    }
    print(rows, { salesRows, seedSeconds, trainSeconds, copySeconds });
  } finally {
    await stop([...workers, ...(api ? [api] : [])]);
    await pool.end();
    await ctx.close();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function print(
  rows: Row[],
  setup: { salesRows: number; seedSeconds: number; trainSeconds: number; copySeconds: number },
): void {
  const base = rows.find((r) => r.batchWall !== null);
  const cores = (c: Cores | null) =>
    c === null
      ? "-"
      : `${c.workers.toFixed(2)} (loop ${c.workerLoops.toFixed(2)}) / ${c.postgres.toFixed(2)} / ${c.api.toFixed(2)} / ${c.bench.toFixed(2)} / ${c.machine.toFixed(2)}`;
  // What the batch's length comes down to once the cores are full: CPU per company, whatever the load around it.
  const perCompany = (r: Row) => {
    const { cores, batchWall } = r;
    if (cores === null || batchWall === null) return "-";
    const each = (used: number) => ((used * batchWall) / COMPANIES).toFixed(3);
    return `${each(cores.workers)} (${each(cores.workerLoops)}) / ${each(cores.postgres)}`;
  };
  console.log(
    `\nbench:scale: ${COMPANIES} companies x ${PRODUCTS} products x ${DAYS} days (history and run length); ` +
      `GET /v2/recommendations?start_date=end_date=today (${PRODUCTS} rows) at ${CONNECTIONS} connections ` +
      `for ${LOAD_SECONDS} s after 2 s of warm-up, load generator ${loadGenerator()}\n` +
      `setup (not timed below): ${setup.salesRows} sales rows inserted in ${setup.seedSeconds.toFixed(1)} s; ` +
      `one training (${TRAIN_SECONDS} s budget) in ${setup.trainSeconds.toFixed(1)} s; ${COMPANIES - 1} artifact copies in ${setup.copySeconds.toFixed(1)} s\n`,
  );
  console.log(
    markdownTable(
      [
        "phase",
        "workers",
        "batch wall (s)",
        "rows written",
        "rows/s",
        "companies/s",
        "speed-up",
        "GET req/s",
        "GET p50 ms",
        "GET p99 ms",
        "GET non-2xx/errors",
        "cores: workers (their event loops) / postgres / API / bench / machine",
        "CPU-s a company: workers (event loops) / postgres",
        "load avg (1 min)",
      ],
      rows.map((r) => [
        r.phase,
        r.workers === null ? "-" : String(r.workers),
        r.batchWall === null ? "-" : r.batchWall.toFixed(1),
        r.batchRows === null ? "-" : String(r.batchRows),
        r.batchWall === null || r.batchRows === null ? "-" : (r.batchRows / r.batchWall).toFixed(0),
        r.batchWall === null ? "-" : (COMPANIES / r.batchWall).toFixed(2),
        r.batchWall === null || base?.batchWall == null
          ? "-"
          : `${(base.batchWall / r.batchWall).toFixed(2)}x`,
        `${r.load.rps.toFixed(0)}${r.loadOutlasted ? " (batch ended first)" : ""}`,
        r.load.p50.toFixed(1),
        r.load.p99.toFixed(1),
        `${r.load.non2xx}/${r.load.errors}`,
        cores(r.cores),
        perCompany(r),
        r.loadavg.toFixed(2),
      ]),
    ),
  );
}

await main();
