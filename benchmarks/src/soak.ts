/**
 * Soak: the built server (`pnpm build` first) as its own process with the demo's data, for N minutes under
 *   - mixed reads (GET /v2/recommendations, /v2/runs, /v2/model over both demo companies) from `wrk`,
 *   - token exchanges (POST /auth/token) from a second `wrk`,
 *   - one compute a second (open loop: fired on the clock whether or not the previous one answered; persisted and
 *     dry run in turn, the two companies in turn) and one training a minute, from this process,
 * while the server's RSS is sampled from /proc every few seconds. It counts 5xx and transport errors (the soak
 * fails on any), 429 and 409 apart, and reports the reads' latency percentiles and RSS first vs last minute.
 *
 *   pnpm soak [--minutes N] [--reads-per-second N] [--read-connections N] [--tokens-per-second N] [--json FILE]
 *             [--keep]
 *
 * The server runs with the demo's defaults (3-second trainings) and the rate limits of reads and token exchanges
 * raised out of the way (the soak is about what the server holds up to, not about the limiter); computes and
 * trainings keep the default per-partner limits and in-flight caps, so their 429s are the product's answer to this
 * load and are counted. `wrk` comes from Debian's packages (`apt-get install wrk`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { markdownTable } from "./markdown-table.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");
const cliPath = path.join(repoRoot, "packages/server/dist/cli.js");
const luaPath = path.join(repoRoot, "benchmarks/soak/soak.lua");
const COMPANIES = ["demo-grocer", "demo-fashion"];
/** The read endpoints, one `wrk` each (their connections split `--read-connections`, their pace `--reads-per-second`). */
const READS = ["recommendations", "runs", "model"] as const;
const PREFIX = "/public/v1";
const WRK_TIMEOUT_S = 10;

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    "reads-per-second": { type: "string", default: "200" },
    "read-connections": { type: "string", default: "9" },
    "tokens-per-second": { type: "string", default: "2" },
    json: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const minutes = Number(args.minutes);
const readsPerSecond = Number(args["reads-per-second"]);
const readConnections = Number(args["read-connections"]);
const tokensPerSecond = Number(args["tokens-per-second"]);
const durationS = Math.round(minutes * 60);

interface WrkResult {
  mode: string;
  requests: number;
  duration_us: number;
  statuses: Record<string, number>;
  errors: { connect: number; read: number; write: number; timeout: number; status: number };
  latency_us: { p50: number; p90: number; p99: number; max: number; mean: number };
}

/** What one kind of traffic got back: status counts, transport errors, latencies (ms). */
interface Tally {
  traffic: string;
  requests: number;
  seconds: number;
  statuses: Map<number, number>;
  /** Connections refused, reset or broken (wrk: connect, read, write errors; the driver: fetch failures). */
  transportErrors: number;
  /**
   * Answers slower than wrk's `--timeout` (10 s): wrk counts them as "timeout" errors and leaves them out of its
   * latency histogram, so they are reported apart (the request was answered, late).
   */
  slow: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Least-squares slope of (x, y) points; NaN with fewer than two. */
function slopePerMinute(points: readonly (readonly [number, number])[]): number {
  if (points.length < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / points.length;
  const my = points.reduce((s, [, y]) => s + y, 0) / points.length;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function rssKiB(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Starts `pricing demo` on `port` and resolves with its key pair once `/healthz` answers. */
async function startDemo(
  dataDir: string,
  port: number,
): Promise<{ server: ChildProcess; accessKey: string; secretKey: string }> {
  const unlimited = { max: 1_000_000_000, windowMs: 60_000 };
  const server = spawn(process.execPath, [cliPath, "demo", "--port", String(port), "--data-dir", dataDir], {
    env: {
      ...process.env,
      PRICING_RATE_LIMITS: JSON.stringify({
        tokenPerKey: unlimited,
        tokenPerAddress: unlimited,
        dataPerPartner: unlimited,
      }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  server.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  let stderr = "";
  server.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`demo exited ${server.exitCode}:\n${stdout}\n${stderr}`);
    if (Date.now() > deadline)
      throw new Error(`demo did not answer /healthz in 180 s:\n${stdout}\n${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    // The demo prints its keys once it listens: /healthz can answer before they reach us.
    if (ok && /secret_key:\s+\S+/.test(stdout)) break;
    await sleep(250);
  }
  const accessKey = /access_key:\s+(\S+)/.exec(stdout)?.[1];
  const secretKey = /secret_key:\s+(\S+)/.exec(stdout)?.[1];
  if (!accessKey || !secretKey) throw new Error(`no key pair in the demo's output:\n${stdout}`);
  // From here on the server's output is its log: keep the error lines, drop the rest.
  server.stderr?.removeAllListeners("data");
  server.stdout?.removeAllListeners("data");
  return { server, accessKey, secretKey };
}

async function runWrk(env: Record<string, string>, connections: number, url: string): Promise<WrkResult> {
  const wrk = spawn(
    "wrk",
    ["-t1", `-c${connections}`, `-d${durationS}s`, "--timeout", `${WRK_TIMEOUT_S}s`, "-s", luaPath, url],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  wrk.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    wrk.once("error", reject);
    wrk.once("exit", resolve);
  });
  const line = out.split("\n").find((l) => l.startsWith("SOAK_RESULT "));
  if (code !== 0 || !line) throw new Error(`wrk (${env.SOAK_MODE}) exited ${code}:\n${out}`);
  return JSON.parse(line.slice("SOAK_RESULT ".length)) as WrkResult;
}

function wrkTally(traffic: string, result: WrkResult): Tally {
  const e = result.errors;
  return {
    traffic,
    requests: result.requests,
    seconds: result.duration_us / 1e6,
    statuses: new Map(Object.entries(result.statuses).map(([k, v]) => [Number(k), v])),
    transportErrors: e.connect + e.read + e.write,
    slow: e.timeout,
    p50Ms: result.latency_us.p50 / 1000,
    p99Ms: result.latency_us.p99 / 1000,
    maxMs: result.latency_us.max / 1000,
  };
}

/** Fires `send` every `periodMs` for the soak's duration without waiting for answers, and tallies them. */
async function openLoop(
  traffic: string,
  periodMs: number,
  send: (i: number) => Promise<Response>,
): Promise<Tally> {
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  let transportErrors = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  for (let i = 0; performance.now() - started < durationS * 1000; i++) {
    const t0 = performance.now();
    const p = send(i)
      .then(async (res) => {
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      })
      .catch(() => {
        transportErrors++;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    const next = started + (i + 1) * periodMs;
    await sleep(Math.max(0, next - performance.now()));
  }
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  return {
    traffic,
    requests: latencies.length + transportErrors,
    seconds: (performance.now() - started) / 1000,
    statuses,
    transportErrors,
    slow: latencies.filter((ms) => ms > WRK_TIMEOUT_S * 1000).length,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies.at(-1) ?? Number.NaN,
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-soak-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  process.stderr.write(`soak: demo data in ${dataDir}, server on ${base}, ${minutes} min\n`);
  const { server, accessKey, secretKey } = await startDemo(dataDir, port);
  const pid = server.pid!;
  let serverErrorLines = 0;
  const countErrorLines = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (/"level":(50|60)/.test(line)) serverErrorLines++;
  };
  server.stdout?.on("data", countErrorLines);
  server.stderr?.on("data", countErrorLines);
  // Should the driver fail half-way, the server must not outlive it.
  process.once("exit", () => server.kill("SIGKILL"));

  const tokenFile = path.join(dataDir, "soak-token");
  let tokenRefreshFailures = 0;
  const exchange = async (): Promise<void> => {
    try {
      const res = await fetch(`${base}${PREFIX}/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ access_key: accessKey, secret_key: secretKey }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (res.status !== 200 || !body.access_token) throw new Error(`token: ${res.status}`);
      writeFileSync(tokenFile, `${body.access_token}\n`);
    } catch {
      tokenRefreshFailures++;
    }
  };
  await exchange();
  const token = () => readFileSync(tokenFile, "utf8").trim();
  // A token lives 15 minutes; a fresh one every 5 keeps the reads (which re-read the file) authorised.
  const refresher = setInterval(() => void exchange(), 5 * 60_000);

  const rss: { t: number; kib: number }[] = [];
  const loads: number[] = [];
  const t0 = performance.now();
  const sample = () => {
    const kib = rssKiB(pid);
    if (kib !== null) rss.push({ t: (performance.now() - t0) / 1000, kib });
    loads.push(loadavg()[0]!);
  };
  sample();
  const sampler = setInterval(sample, 5_000);

  const today = new Date().toISOString().slice(0, 10);
  const inSixDays = new Date(Date.now() + 6 * 86_400_000).toISOString().slice(0, 10);
  const post = (route: string, body: unknown) =>
    fetch(`${base}${PREFIX}${route}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token()}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const loadAtStart = loadavg()[0]!;
  const readConnectionsEach = Math.max(1, Math.round(readConnections / READS.length));
  const readDelayMs = readsPerSecond > 0 ? (readConnectionsEach * READS.length * 1000) / readsPerSecond : 0;
  const [tokens, computes, trainings, ...reads] = await Promise.all([
    runWrk(
      {
        SOAK_MODE: "token",
        SOAK_PREFIX: PREFIX,
        SOAK_ACCESS_KEY: accessKey,
        SOAK_SECRET_KEY: secretKey,
        SOAK_DELAY_MS: String(1000 / tokensPerSecond),
      },
      1,
      base,
    ).then((r) => wrkTally("token exchanges (wrk)", r)),
    openLoop("computes, 1/s", 1000, (i) =>
      post("/v2/recommendations/compute", { company_id: COMPANIES[i % 2], dry_run: i % 4 >= 2 }),
    ),
    openLoop("trainings, 1/min", 60_000, (i) =>
      post("/v2/model/train", { company_id: COMPANIES[i % 2], auto_approve: i % 4 < 2 }),
    ),
    ...READS.map((endpoint) =>
      runWrk(
        {
          SOAK_MODE: endpoint,
          SOAK_PREFIX: PREFIX,
          SOAK_TOKEN_FILE: tokenFile,
          SOAK_COMPANIES: COMPANIES.join(","),
          SOAK_START_DATE: today,
          SOAK_END_DATE: inSixDays,
          SOAK_DELAY_MS: String(readDelayMs),
        },
        readConnectionsEach,
        base,
      ).then((r) => wrkTally(`GET /v2/${endpoint} (wrk)`, r)),
    ),
  ]);
  clearInterval(sampler);
  clearInterval(refresher);
  sample();
  const loadAtEnd = loadavg()[0]!;
  server.kill("SIGTERM");
  const exitCode = await new Promise<number | null>((resolve) => {
    if (server.exitCode !== null) resolve(server.exitCode);
    else server.once("exit", (code) => resolve(code));
  });

  const tallies = [...reads, tokens, computes, trainings];
  const count = (t: Tally, pick: (status: number) => boolean) =>
    [...t.statuses].filter(([s]) => pick(s)).reduce((sum, [, n]) => sum + n, 0);
  const ms = (x: number) => (Number.isNaN(x) ? "" : x.toFixed(1));
  const rows = tallies.map((t) => [
    t.traffic,
    String(t.requests),
    (t.requests / t.seconds).toFixed(1),
    String(count(t, (s) => s >= 200 && s < 300)),
    String(count(t, (s) => s === 409)),
    String(count(t, (s) => s === 429)),
    String(count(t, (s) => s >= 400 && s < 500 && s !== 409 && s !== 429)),
    String(count(t, (s) => s >= 500)),
    String(t.transportErrors),
    String(t.slow),
    ms(t.p50Ms),
    ms(t.p99Ms),
    ms(t.maxMs),
  ]);
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const end = rss.at(-1)?.t ?? 0;
  const minuteMean = (from: number, to: number) =>
    mean(rss.filter((s) => s.t >= from && s.t < to).map((s) => s.kib / 1024));
  const rssFirst = minuteMean(0, 60);
  const rssSecond = minuteMean(60, 120);
  const rssLast = minuteMean(end - 60, end + 1);
  const rssMax = Math.max(...rss.map((s) => s.kib / 1024));
  // The first minute holds the start-up sample and the warm-up (threads, caches); a leak shows as a slope after it.
  const rssSlope = slopePerMinute(rss.filter((s) => s.t >= 60).map((s) => [s.t / 60, s.kib / 1024] as const));
  const fiveXx = tallies.reduce((s, t) => s + count(t, (x) => x >= 500), 0);
  const transport = tallies.reduce((s, t) => s + t.transportErrors, 0);

  console.log(
    `\nSoak: ${minutes} min against the demo (built server, SQLite), reads paced at ${readsPerSecond || "max"}/s ` +
      `over ${readConnections} connections (a third per endpoint), ${tokensPerSecond} token exchanges/s, 1 compute/s, 1 training/min\n`,
  );
  console.log(
    markdownTable(
      [
        "traffic",
        "requests",
        "per s",
        "2xx",
        "409",
        "429",
        "other 4xx",
        "5xx",
        "transport errors",
        `> ${WRK_TIMEOUT_S} s`,
        "p50 ms",
        "p99 ms",
        "max ms",
      ],
      rows,
    ),
  );
  console.log(
    `\nServer RSS: first minute ${rssFirst.toFixed(1)} MiB, second ${rssSecond.toFixed(1)} MiB, last minute ` +
      `${rssLast.toFixed(1)} MiB (${(((rssLast - rssFirst) / rssFirst) * 100).toFixed(1)} % of the first, ` +
      `${(((rssLast - rssSecond) / rssSecond) * 100).toFixed(1)} % of the second), max ${rssMax.toFixed(1)} MiB, ` +
      `trend after the first minute ${rssSlope.toFixed(2)} MiB/min ` +
      `(${rss.length} samples every 5 s)`,
  );
  console.log(
    `Load average (1 min): ${loadAtStart.toFixed(2)} at start, ${mean(loads).toFixed(2)} mean, ` +
      `${Math.max(...loads).toFixed(2)} max, ${loadAtEnd.toFixed(2)} at end`,
  );
  console.log(
    `Server error log lines: ${serverErrorLines}; driver token refresh failures: ${tokenRefreshFailures}; ` +
      `server exit on SIGTERM: ${exitCode}`,
  );
  if (args.json) {
    writeFileSync(
      args.json,
      `${JSON.stringify(
        {
          minutes,
          tallies: tallies.map((t) => ({ ...t, statuses: Object.fromEntries(t.statuses) })),
          rss,
          loads,
          serverErrorLines,
          tokenRefreshFailures,
          exitCode,
        },
        null,
        2,
      )}\n`,
    );
  }
  if (args.keep) process.stderr.write(`soak: kept ${dataDir}\n`);
  else rmSync(dataDir, { recursive: true, force: true });
  if (fiveXx > 0 || transport > 0 || tokenRefreshFailures > 0 || serverErrorLines > 0) {
    console.error(
      `soak FAILED: ${fiveXx} 5xx, ${transport} transport errors, ${serverErrorLines} error log lines, ` +
        `${tokenRefreshFailures} failed token renewals`,
    );
    process.exitCode = 1;
  }
}

await main();
