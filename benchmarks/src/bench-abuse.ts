/**
 * Fair under abuse (issue 28): the real server as a child process (`pricing serve` from the sources, SQLite in a
 * temporary data dir, the default limits but the per-minute rate limits), this process as its clients.
 *
 * 1. Idle flood: one client address (127.0.0.2, loopback too) holds `--sockets` connections that send nothing,
 *    reopening each one the server closes a second later, for `--seconds`, from a process of its own; meanwhile
 *    `/healthz` is probed from 127.0.0.1 every 50 ms (2 s timeout). Target: success >= 99 %, p99 <= 100 ms.
 * 2. Fair planning: partner B's small computes (dry run, one at a time) alone, then beside partner A's large ones
 *    (`--products` x 366 days, one at a time), for `--seconds` each. Target: B's p50 beside A within 3x B's p50 alone.
 *
 *   pnpm bench:abuse [--quick] [--sockets N] [--seconds N] [--products N]
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  createServerContext,
  demoScenario,
  issueCredentials,
  loadConfig,
  type ServerContext,
  seedCompanyFromMarket,
} from "@pricing/server";
import { markdownTable } from "./markdown-table.js";
import { initDataDir, startServerProcess, stopServerProcess } from "./server-process.js";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    sockets: { type: "string" },
    seconds: { type: "string" },
    products: { type: "string" },
    flood: { type: "string" },
  },
});
const quick = args.quick === true;
const SOCKETS = Number(args.sockets ?? (quick ? 300 : 1_100));
const SECONDS = Number(args.seconds ?? (quick ? 8 : 30));
const LARGE_PRODUCTS = Number(args.products ?? (quick ? 40 : 100));
const LARGE_DAYS = 366;
/** A closed flood socket is opened again after this long: an attacker keeping up the pressure, at a bounded rate. */
const REOPEN_AFTER_MS = 1_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function seedCompany(ctx: ServerContext, dataDir: string, companyId: string, products: number) {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
  await seedCompanyFromMarket(ctx, {
    companyId,
    name: companyId,
    timezone: "UTC",
    currency: "EUR",
    dir: path.join(dataDir, "csv", companyId),
    scenario: demoScenario({
      name: companyId,
      today,
      seed: 7,
      products,
      tightStock: false,
      horizon: 21,
      historyDays: 42,
    }),
  });
  const credentials = issueCredentials(ctx.pepper);
  const partner = await ctx.repositories.partners.create(`bench ${companyId}`, credentials);
  await ctx.repositories.companies.map(partner.partner_id, companyId);
  return { access_key: credentials.access_key, secret_key: credentials.secret_key };
}

/** One GET /healthz with a deadline: its latency in ms, or null when it failed or timed out. */
async function probe(url: string): Promise<number | null> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200 ? performance.now() - started : null;
  } catch {
    return null;
  }
}

interface FloodResult {
  probes: number;
  ok: number;
  p50: number;
  p99: number;
  max: number;
  reopened: number;
}

/** The flood itself, in its own process (`--flood URL`), so its sockets' churn is not on the probing loop. */
async function holdSilentSockets(url: string): Promise<void> {
  const { port } = new URL(url);
  let stop = false;
  let reopened = 0;
  const open = new Set<ReturnType<typeof connect>>();
  const hold = () => {
    if (stop) return;
    const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress: "127.0.0.2" });
    open.add(socket);
    socket.on("error", () => undefined);
    socket.once("close", () => {
      open.delete(socket);
      if (stop) return;
      reopened++;
      setTimeout(hold, REOPEN_AFTER_MS);
    });
  };
  for (let i = 0; i < SOCKETS; i++) hold();
  await sleep(SECONDS * 1000);
  stop = true;
  for (const socket of open) socket.destroy();
  process.stdout.write(`${JSON.stringify({ reopened })}\n`);
}

async function idleFlood(url: string): Promise<FloodResult> {
  // The server's first answers compile their code paths: not what the flood is measured against.
  for (let i = 0; i < 40; i++) await probe(url);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=@pricing/source",
      fileURLToPath(import.meta.url),
      "--flood",
      url,
      "--sockets",
      String(SOCKETS),
      "--seconds",
      String(SECONDS),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let printed = "";
  child.stdout.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  const exited = once(child, "exit");
  // Its sockets open within the first moments; the probes then run as long as it holds them.
  await sleep(1_000);
  const latencies: number[] = [];
  let probes = 0;
  const until = performance.now() + (SECONDS - 2) * 1000;
  while (performance.now() < until) {
    probes++;
    const ms = await probe(url);
    if (ms !== null) latencies.push(ms);
    await sleep(50);
  }
  await exited;
  const { reopened } = JSON.parse(printed.trim() || "{}") as { reopened?: number };
  latencies.sort((a, b) => a - b);
  return {
    probes,
    ok: latencies.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies.at(-1) ?? Number.NaN,
    reopened: reopened ?? Number.NaN,
  };
}

async function tokenOf(url: string, keys: { access_key: string; secret_key: string }): Promise<string> {
  const res = await fetch(`${url}/public/v1/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(keys),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

function computer(url: string, token: string, body: Record<string, unknown>) {
  return async (): Promise<number> => {
    const started = performance.now();
    const res = await fetch(`${url}/public/v1/v2/recommendations/compute`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ dry_run: true, ...body }),
    });
    // Not parsed: the answer's bytes are what the client waits for.
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`compute ${JSON.stringify(body)}: ${res.status}`);
    return performance.now() - started;
  };
}

/** `run` back to back for `seconds`; the latencies, sorted. */
async function loop(run: () => Promise<number>, seconds: number, stop?: () => boolean): Promise<number[]> {
  const out: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until && !(stop?.() ?? false)) out.push(await run());
  return out.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-abuse-"));
  await initDataDir(dataDir);
  const seedCtx = await createServerContext(loadConfig({}, { dataDir, logLevel: "silent" }));
  let a: { access_key: string; secret_key: string };
  let b: { access_key: string; secret_key: string };
  try {
    a = await seedCompany(seedCtx, dataDir, "large", LARGE_PRODUCTS);
    b = await seedCompany(seedCtx, dataDir, "small", 3);
  } finally {
    await seedCtx.close();
  }
  const unlimited = { max: 1_000_000, windowMs: 60_000 };
  const server = await startServerProcess(dataDir, {
    env: {
      PRICING_RATE_LIMITS: JSON.stringify({
        tokenPerKey: unlimited,
        tokenPerAddress: unlimited,
        dataPerPartner: unlimited,
        computePerPartner: unlimited,
      }),
    },
  });
  try {
    const flood = await idleFlood(server.url);

    const smallCompute = computer(server.url, await tokenOf(server.url, b), { company_id: "small" });
    const largeCompute = computer(server.url, await tokenOf(server.url, a), {
      company_id: "large",
      end_date: new Date(Date.now() + (LARGE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10),
    });
    // Warm both planning threads (the engine loads in each) before anything is timed.
    await Promise.all([smallCompute(), smallCompute()]);
    const alone = await loop(smallCompute, SECONDS / 2);
    let largeDone = false;
    const large: number[] = [];
    const aLoop = (async () => {
      const until = performance.now() + SECONDS * 1000;
      while (performance.now() < until) large.push(await largeCompute());
      largeDone = true;
    })();
    // B starts once A's first large plan is on its thread.
    await sleep(200);
    const beside = await loop(smallCompute, SECONDS, () => largeDone);
    await aLoop;
    large.sort((x, y) => x - y);

    const ms = (x: number) => (Number.isNaN(x) ? "" : x.toFixed(1));
    const pass = (ok: boolean) => (ok ? "yes" : "NO");
    const success = flood.ok / flood.probes;
    const ratio = quantile(beside, 0.5) / quantile(alone, 0.5);
    console.log(
      `\nIdle flood: ${SOCKETS} silent sockets from one address for ${SECONDS} s (each reopened 1 s after the server closed it), ` +
        "/healthz probed every 50 ms from another:\n",
    );
    console.log(
      markdownTable(
        [
          "probes",
          "success",
          "p50 ms",
          "p99 ms",
          "max ms",
          "flood sockets reopened",
          "target met (>= 99 %, p99 <= 100 ms)",
        ],
        [
          [
            String(flood.probes),
            `${(100 * success).toFixed(2)} %`,
            ms(flood.p50),
            ms(flood.p99),
            ms(flood.max),
            String(flood.reopened),
            pass(success >= 0.99 && flood.p99 <= 100),
          ],
        ],
      ),
    );
    console.log(
      `\nFair planning: partner B's 3-product computes alone, then beside partner A's ${LARGE_PRODUCTS} x ` +
        `${LARGE_DAYS}-day computes (one at a time, ${LARGE_PRODUCTS * LARGE_DAYS} prices), default threads:\n`,
    );
    console.log(
      markdownTable(
        [
          "phase",
          "B computes",
          "B p50 ms",
          "B p95 ms",
          "A computes",
          "A p50 ms",
          "B p50 / alone",
          "target met (<= 3x)",
        ],
        [
          [
            "B alone",
            String(alone.length),
            ms(quantile(alone, 0.5)),
            ms(quantile(alone, 0.95)),
            "",
            "",
            "1.00",
            "",
          ],
          [
            "B beside A",
            String(beside.length),
            ms(quantile(beside, 0.5)),
            ms(quantile(beside, 0.95)),
            String(large.length),
            ms(quantile(large, 0.5)),
            ratio.toFixed(2),
            pass(ratio <= 3),
          ],
        ],
      ),
    );
  } finally {
    await stopServerProcess(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (args.flood === undefined) await main();
else await holdSilentSockets(args.flood);
