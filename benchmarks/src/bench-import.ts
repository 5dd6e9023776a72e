/**
 * `pnpm bench:import [--megabytes N] [--products N] [--rate N] [--seed N] [--skip-bad-file]`: a seeded sales.csv of
 * N MB (50) imported by the `pricing data import` CLI, as its own process, into the SQLite data dir of a running
 * `pricing serve`, while the server answers paced GETs and persists a run every 2 s, each with a webhook delivery
 * to a receiver here (an API writer and the dispatcher's writes, both meeting the import's write lock). First the same
 * file with a bad last row (it must write nothing), then the file itself. Reports the importing process's peak RSS
 * (`VmHWM`), the longest write-lock hold another writer met, the GET latencies, the computes' answers and the
 * deliveries. Targets: peak RSS <= 400 MiB, GET p99 <= 100 ms.
 */
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import {
  createServerContext,
  demoScenario,
  generateWebhookSecret,
  importCompanyData,
  issueCredentials,
  loadConfig,
  runNightlyBatch,
  seedCompanyFromMarket,
  sqlitePath,
} from "@pricing/server";
import SqliteDatabase from "better-sqlite3";
import { markdownTable } from "./markdown-table.js";
import { writeSalesFiles } from "./sales-file.js";
import { initDataDir, startServerProcess, stopServerProcess } from "./server-process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const IMPORT_COMPANY = "import-co";
const READ_COMPANY = "reads-co";
const COMPUTE_EVERY_MS = 2000;
const RSS_TARGET_MIB = 400;
const P99_TARGET_MS = 100;
/** How long the deliveries of the computes may take after the import ends (the dispatcher polls every second). */
const DELIVERY_GRACE_MS = 60_000;

interface ImportRun {
  name: string;
  /** Null: no import, the same load for `idleSeconds` (the yardstick). */
  file: string | null;
  /** Rows the company must hold after it: all of the file's, or none. */
  expectRows: number;
  expectExit: 0 | 1;
}

interface ImportResult {
  run: ImportRun;
  exit: number | null;
  seconds: number;
  peakRssMiB: number;
  longestLockMs: number;
  /** The server's longest event-loop delay while it ran (its Prometheus `nodejs_eventloop_lag_max_seconds`). */
  loopMaxMs: number;
  salesRows: number;
  gets: number[];
  getFailures: number;
  computes: Map<number, number>;
  deliveries: { expected: number; delivered: number; maxDelayMs: number };
}

/** Seeds the data dir: the import company's catalogue, a small company with a run to read, a partner, a webhook. */
async function seed(
  dataDir: string,
  productsFile: string,
  receiverUrl: string,
): Promise<{ access_key: string; secret_key: string }> {
  await initDataDir(dataDir);
  const ctx = await createServerContext(loadConfig({}, { dataDir, pricing: { runDays: 30 } }));
  try {
    await ctx.repositories.companies.create({
      company_id: IMPORT_COMPANY,
      name: "Import",
      timezone: "UTC",
      currency: "EUR",
    });
    await importCompanyData(ctx.db, ctx.clock, { companyId: IMPORT_COMPANY, productsFile });
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
    await seedCompanyFromMarket(ctx, {
      companyId: READ_COMPANY,
      name: READ_COMPANY,
      timezone: "UTC",
      currency: "EUR",
      dir: path.join(dataDir, "csv"),
      scenario: demoScenario({
        name: READ_COMPANY,
        today,
        seed: 5,
        products: 20,
        tightStock: true,
        historyDays: 28,
      }),
    });
    // Both companies' runs of today, so the server's start-up catch-up has no batch to run during the measurement.
    await runNightlyBatch(ctx, { trigger: "cli" });
    const credentials = issueCredentials(ctx.pepper);
    const partner = await ctx.repositories.partners.create("bench-import", credentials);
    await ctx.repositories.companies.map(partner.partner_id, READ_COMPANY);
    await ctx.repositories.webhooks.createEndpoint({
      partnerId: partner.partner_id,
      url: receiverUrl,
      events: ["recommendations.updated"],
      secret: generateWebhookSecret(),
      createdAt: new Date().toISOString(),
    });
    return { access_key: credentials.access_key, secret_key: credentials.secret_key };
  } finally {
    await ctx.close();
  }
}

/** A webhook receiver: when each run's delivery arrived. */
async function startReceiver(): Promise<{ server: Server; url: string; arrived: Map<string, number> }> {
  const arrived = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data?: { run_id?: string } };
      if (body.data?.run_id && !arrived.has(body.data.run_id))
        arrived.set(body.data.run_id, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, arrived };
}

/** The process's peak resident set so far, MiB (`VmHWM`); null once it has exited. */
function peakRssMiB(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Another writer's view of the database: every 20 ms it tries to take the write lock (and lets go at once). The
 * longest stretch it could not is the longest write-lock hold it met: the import's last step.
 */
function probeWriteLock(file: string): { stop(): number } {
  const probe = new SqliteDatabase(file);
  probe.pragma("busy_timeout = 0");
  let longest = 0;
  let busySince: number | null = null;
  const timer = setInterval(() => {
    try {
      probe.exec("begin immediate");
      probe.exec("rollback");
      if (busySince !== null) longest = Math.max(longest, performance.now() - busySince);
      busySince = null;
    } catch {
      busySince ??= performance.now();
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      probe.close();
      return longest;
    },
  };
}

interface ImportExit {
  exit: number | null;
  /** MiB. */
  peak: number;
  stderr: string;
}

async function idle(seconds: number): Promise<ImportExit> {
  await sleep(seconds * 1000);
  return { exit: 0, peak: 0, stderr: "" };
}

/** The `pricing` bin (package.json `bin`): what an operator runs, so what the peak RSS is measured on. */
const PRICING_BIN = path.join(ROOT, "packages/server/dist/cli.js");

/**
 * Brings dist/ up to date with the source (incremental: under a second when it already is), so a fresh clone runs
 * this benchmark without a separate `pnpm build` and an edited tree is never measured on a stale build. The
 * importing process cannot run from source under tsx as the server here does: tsx's loader adds ~150 MiB of peak RSS
 * to the import (the same dist/ code measured 268-282 MiB bare and 424-437 MiB under `--import tsx` on 26 Nov), which
 * the shipped bin does not carry.
 */
function buildServer(): void {
  const tsc = spawnSync(
    process.execPath,
    [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "packages/server"],
    { cwd: ROOT, stdio: "inherit" },
  );
  if (tsc.status !== 0) throw new Error(`tsc -b packages/server failed (exit ${tsc.status})`);
}

/** `pricing data import --sales file` as its own process, its peak RSS polled every 50 ms. */
async function importProcess(file: string, dataDir: string): Promise<ImportExit> {
  const child = spawn(
    process.execPath,
    [PRICING_BIN, "data", "import", "--company", IMPORT_COMPANY, "--sales", file, "--json"],
    {
      cwd: ROOT,
      env: { ...process.env, PRICING_DATA_DIR: dataDir, PRICING_LOG_LEVEL: "silent" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  let peak = 0;
  const pid = child.pid ?? 0;
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRssMiB(pid) ?? 0);
  }, 50);
  const exit = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearInterval(poll);
  return { exit, peak, stderr };
}

/** POST /v2/recommendations/compute of the read company, persisted. */
async function compute(
  url: string,
  auth: Record<string, string>,
): Promise<{ status: number; runId: string | null }> {
  const res = await fetch(`${url}/v2/recommendations/compute`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ company_id: READ_COMPANY }),
  });
  const body = (await res.json()) as { run?: { run_id: string } | null };
  return { status: res.status, runId: res.status === 200 ? (body.run?.run_id ?? null) : null };
}

/** The server's first answers load the engine and start its planning threads: not what this benchmark measures. */
async function warmUp(url: string, token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  for (let i = 0; i < 2; i++) {
    if ((await compute(url, auth)).status !== 200) throw new Error("the warm-up compute failed");
  }
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/v2/recommendations?company_id=${READ_COMPANY}`, { headers: auth });
    await res.arrayBuffer();
  }
}

/**
 * The server's longest event-loop delay since the last call, ms: prom-client resets the gauge's histogram each
 * time it is read, so a read before a run starts its window.
 */
async function loopDelayMaxMs(metricsUrl: string | null): Promise<number> {
  if (metricsUrl === null) return Number.NaN;
  const text = await (await fetch(metricsUrl)).text();
  const match = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  return match?.[1] ? Number(match[1]) * 1000 : Number.NaN;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
}

async function measuredImport(
  run: ImportRun,
  env: {
    dataDir: string;
    url: string;
    token: string;
    rate: number;
    metricsUrl: string | null;
    idleSeconds: number;
    arrived: Map<string, number>;
  },
): Promise<ImportResult> {
  const auth = { authorization: `Bearer ${env.token}` };
  const gets: number[] = [];
  let getFailures = 0;
  const computes = new Map<number, number>();
  const persisted = new Map<string, number>();
  let importing = true;
  const inFlight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  // Paced GETs, alternating the two read routes; latency from each request's send.
  const reads = (async () => {
    const paths = [`/v2/recommendations?company_id=${READ_COMPANY}`, `/v2/runs?company_id=${READ_COMPANY}`];
    const started = performance.now();
    for (let i = 0; importing; i++) {
      const due = started + (i * 1000) / env.rate;
      if (due > performance.now()) await sleep(due - performance.now());
      track(
        (async () => {
          const sent = performance.now();
          try {
            const res = await fetch(`${env.url}${paths[i % 2]}`, { headers: auth });
            await res.arrayBuffer();
            if (res.status === 200) gets.push(performance.now() - sent);
            else getFailures++;
          } catch {
            getFailures++;
          }
        })(),
      );
    }
  })();
  // A persisted run every COMPUTE_EVERY_MS (one at a time): an API write, and a delivery the dispatcher writes for.
  const writes = (async () => {
    while (importing) {
      const sent = performance.now();
      try {
        const res = await compute(env.url, auth);
        computes.set(res.status, (computes.get(res.status) ?? 0) + 1);
        if (res.runId !== null) persisted.set(res.runId, performance.now());
      } catch {
        computes.set(0, (computes.get(0) ?? 0) + 1);
      }
      await sleep(Math.max(0, sent + COMPUTE_EVERY_MS - performance.now()));
    }
  })();

  await loopDelayMaxMs(env.metricsUrl);
  const probe = probeWriteLock(sqlitePath(env.dataDir));
  const started = performance.now();
  const imported = run.file === null ? idle(env.idleSeconds) : importProcess(run.file, env.dataDir);
  const { exit, peak, stderr } = await imported;
  const seconds = (performance.now() - started) / 1000;
  importing = false;
  const longestLockMs = probe.stop();
  const loopMaxMs = await loopDelayMaxMs(env.metricsUrl);
  await Promise.all([reads, writes]);
  await Promise.all([...inFlight]);
  if (exit !== run.expectExit) process.stderr.write(`${run.name}: the import exited ${exit}: ${stderr}\n`);

  const deadline = performance.now() + DELIVERY_GRACE_MS;
  while ([...persisted.keys()].some((id) => !env.arrived.has(id)) && performance.now() < deadline) {
    await sleep(200);
  }
  const delays = [...persisted].flatMap(([id, at]) => {
    const arrivedAt = env.arrived.get(id);
    return arrivedAt === undefined ? [] : [arrivedAt - at];
  });
  const db = new SqliteDatabase(sqlitePath(env.dataDir), { readonly: true });
  const salesRows = (
    db.prepare("select count(*) as n from sales where company_id = ?").get(IMPORT_COMPANY) as { n: number }
  ).n;
  db.close();
  return {
    run,
    exit,
    seconds,
    peakRssMiB: peak,
    longestLockMs,
    loopMaxMs,
    salesRows,
    gets: gets.sort((a, b) => a - b),
    getFailures,
    computes,
    deliveries: { expected: persisted.size, delivered: delays.length, maxDelayMs: Math.max(0, ...delays) },
  };
}

/** The import did what it must: its exit, all or nothing, every GET answered, every webhook delivered. */
function correct(r: ImportResult): boolean {
  return (
    r.exit === r.run.expectExit &&
    r.salesRows === r.run.expectRows &&
    r.getFailures === 0 &&
    r.deliveries.delivered === r.deliveries.expected
  );
}

function passes(r: ImportResult): boolean {
  return correct(r) && r.peakRssMiB <= RSS_TARGET_MIB && percentile(r.gets, 0.99) <= P99_TARGET_MS;
}

function table(results: ImportResult[], megabytes: number): string {
  const header = [
    "run",
    "MB",
    "exit",
    "rows after",
    "import s",
    "peak RSS MiB",
    "longest write lock s",
    "server loop max delay ms",
    "GETs",
    "GET p50 ms",
    "GET p99 ms",
    "GET max ms",
    "GET failed",
    "computes (status: n)",
    "deliveries (max delay s)",
    "pass",
  ];
  const rows = results.map((r) => [
    r.run.name,
    megabytes.toFixed(1),
    String(r.exit),
    r.salesRows.toLocaleString("en-US"),
    r.seconds.toFixed(1),
    r.peakRssMiB.toFixed(0),
    (r.longestLockMs / 1000).toFixed(2),
    r.loopMaxMs.toFixed(0),
    String(r.gets.length),
    percentile(r.gets, 0.5).toFixed(1),
    percentile(r.gets, 0.99).toFixed(1),
    (r.gets.at(-1) ?? Number.NaN).toFixed(1),
    String(r.getFailures),
    [...r.computes].map(([status, n]) => `${status === 0 ? "failed" : status}: ${n}`).join(", "),
    `${r.deliveries.delivered}/${r.deliveries.expected} (${(r.deliveries.maxDelayMs / 1000).toFixed(1)})`,
    passes(r) ? "yes" : "NO",
  ]);
  return markdownTable(header, rows);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      megabytes: { type: "string", default: "50" },
      "idle-seconds": { type: "string", default: "10" },
      products: { type: "string", default: "1000" },
      rate: { type: "string", default: "100" },
      seed: { type: "string", default: "1" },
      "skip-bad-file": { type: "boolean", default: false },
    },
  });
  buildServer();
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-import-"));
  const receiver = await startReceiver();
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const files = await writeSalesFiles(dataDir, {
      bytes: Number(values.megabytes) * 1_000_000,
      products: Number(values.products),
      seed: Number(values.seed),
    });
    const badFile = path.join(dataDir, "sales-bad-last-row.csv");
    copyFileSync(files.sales, badFile);
    appendFileSync(badFile, "2099-12-31,sku-00000,9.99,-1,,0\n");
    const key = await seed(dataDir, files.products, receiver.url);
    server = await startServerProcess(dataDir, {
      env: { PRICING_WEBHOOK_ALLOW_PRIVATE: "true", PRICING_METRICS_PORT: "0" },
    });
    const exchange = await fetch(`${server.url}/public/v1/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(key),
    });
    const token = ((await exchange.json()) as { access_token: string }).access_token;
    await warmUp(server.url, token);
    const loadBefore = loadavg()[0] ?? 0;
    const runs: ImportRun[] = [
      { name: "no import", file: null, expectRows: 0, expectExit: 0 },
      ...(values["skip-bad-file"]
        ? []
        : [{ name: "last row bad", file: badFile, expectRows: 0, expectExit: 1 as const }]),
      { name: "valid", file: files.sales, expectRows: files.rows, expectExit: 0 },
    ];
    const results: ImportResult[] = [];
    for (const run of runs) {
      results.push(
        await measuredImport(run, {
          dataDir,
          url: server.url,
          token,
          rate: Number(values.rate),
          metricsUrl: server.metricsUrl,
          idleSeconds: Number(values["idle-seconds"]),
          arrived: receiver.arrived,
        }),
      );
    }
    console.log(
      `Import benchmark: sales.csv ${(files.bytes / 1e6).toFixed(1)} MB, ${files.rows.toLocaleString("en-US")} rows ` +
        `(${values.products} products, seed ${values.seed}); GETs paced at ${values.rate}/s; a compute every ` +
        `${COMPUTE_EVERY_MS / 1000} s with its webhook delivery; targets: peak RSS <= ${RSS_TARGET_MIB} MiB, ` +
        `GET p99 <= ${P99_TARGET_MS} ms; 1-minute load average ${loadBefore.toFixed(1)} before, ` +
        `${(loadavg()[0] ?? 0).toFixed(1)} after (${cpus().length} cores)`,
    );
    console.log(table(results, files.bytes / 1e6));
    // The targets are printed (the pass column), not asserted: a busy machine misses the latency one.
    if (!results.every(correct)) process.exitCode = 1;
  } finally {
    if (server) await stopServerProcess(server.child);
    receiver.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
