/**
 * What planning costs the API's event loop: the real server in this process (loopback port, SQLite file in a
 * temporary data dir), one 100-product company on a trained, approved policy, and per phase the event loop's delay
 * (`perf_hooks.monitorEventLoopDelay`, p99 and max) and the latency of a cheap GET (`/healthz`, one at a time)
 * while, in that phase, nothing else runs, the first compute after start-up runs (policy load included), and
 * computes run back to back (dry run, then persisted).
 *
 *   pnpm bench:event-loop [--seconds N] [--products N] [--days N] [--train-seconds N]
 *
 * The clients run in this process too (the loop's delay is what they see); they parse no compute answer. It uses
 * the server's public surface only, so the same file runs against an older checkout to compare.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import {
  createServerContext,
  demoScenario,
  issueCredentials,
  loadConfig,
  seedCompanyFromMarket,
  startServer,
  trainModel,
} from "@pricing/server";
import { markdownTable } from "./markdown-table.js";

const COMPANY = "loop-co";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    products: { type: "string", default: "100" },
    days: { type: "string", default: "90" },
    "train-seconds": { type: "string", default: "10" },
  },
});
const seconds = Number(args.seconds);
const products = Number(args.products);
const days = Number(args.days);

interface PhaseResult {
  phase: string;
  seconds: number;
  computes: number;
  computeMeanMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
  gets: number;
  getP50Ms: number;
  getP95Ms: number;
  getMaxMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/**
 * Runs `work` in a loop (or once, with `once`) for `seconds` while a client GETs `/healthz` one request at a time
 * (10 ms apart), and measures the loop's delay over the phase.
 */
async function phase(
  name: string,
  url: string,
  work: (() => Promise<void>) | null,
  options: { seconds: number; once?: boolean },
): Promise<PhaseResult> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const latencies: number[] = [];
  const computeMs: number[] = [];
  let stop = false;
  histogram.enable();
  const started = performance.now();
  const pinger = (async () => {
    while (!stop) {
      const t0 = performance.now();
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`/healthz: ${res.status}`);
      latencies.push(performance.now() - t0);
      await sleep(10);
    }
  })();
  const worker = (async () => {
    if (work === null) {
      await sleep(options.seconds * 1000);
      return;
    }
    do {
      const t0 = performance.now();
      await work();
      computeMs.push(performance.now() - t0);
    } while (!options.once && performance.now() - started < options.seconds * 1000);
  })();
  await worker;
  stop = true;
  await pinger;
  histogram.disable();
  latencies.sort((a, b) => a - b);
  return {
    phase: name,
    seconds: (performance.now() - started) / 1000,
    computes: computeMs.length,
    computeMeanMs: computeMs.length ? computeMs.reduce((s, x) => s + x, 0) / computeMs.length : Number.NaN,
    loopP99Ms: histogram.percentile(99) / 1e6,
    loopMaxMs: histogram.max / 1e6,
    gets: latencies.length,
    getP50Ms: quantile(latencies, 0.5),
    getP95Ms: quantile(latencies, 0.95),
    getMaxMs: latencies.at(-1) ?? Number.NaN,
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-loop-"));
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
  const config = loadConfig(
    { PRICING_PLAN_THREADS: process.env.PRICING_PLAN_THREADS },
    {
      dataDir,
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      rateLimits: {
        computePerPartner: { max: 1_000_000, windowMs: 60_000 },
        dataPerPartner: { max: 1_000_000, windowMs: 60_000 },
      },
      pricing: { runDays: days, trainHorizonDays: days, trainSeconds: Number(args["train-seconds"]) },
    },
  );
  const seedCtx = await createServerContext(config);
  let keys: { access_key: string; secret_key: string };
  try {
    await seedCompanyFromMarket(seedCtx, {
      companyId: COMPANY,
      name: COMPANY,
      timezone: "UTC",
      currency: "EUR",
      dir: path.join(dataDir, "csv"),
      scenario: demoScenario({
        name: COMPANY,
        today,
        seed: 7,
        products,
        tightStock: true,
        horizon: days,
        historyDays: 42,
      }),
    });
    const credentials = issueCredentials(seedCtx.pepper);
    const partner = await seedCtx.repositories.partners.create("bench", credentials);
    await seedCtx.repositories.companies.map(partner.partner_id, COMPANY);
    keys = { access_key: credentials.access_key, secret_key: credentials.secret_key };
    const trained = await trainModel(seedCtx, { company_id: COMPANY, auto_approve: true });
    process.stderr.write(`trained ${trained.model_id}\n`);
  } finally {
    await seedCtx.close();
  }

  const server = await startServer(config);
  try {
    const res = await fetch(`${server.url}/public/v1/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(keys),
    });
    const { access_token: token } = (await res.json()) as { access_token: string };
    const compute = (dryRun: boolean) => async () => {
      const r = await fetch(`${server.url}/public/v1/v2/recommendations/compute`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ company_id: COMPANY, dry_run: dryRun }),
      });
      // Not parsed: this client shares the server's event loop, and parsing the 2 MB answer would count against it.
      const body = Buffer.from(await r.arrayBuffer());
      if (r.status !== 200 || !body.includes('"source":"approved"')) {
        throw new Error(`compute: ${r.status} ${body.subarray(0, 300).toString()}`);
      }
    };
    const results: PhaseResult[] = [];
    results.push(await phase("idle", server.url, null, { seconds }));
    results.push(
      await phase("first compute after start", server.url, compute(true), { seconds, once: true }),
    );
    results.push(await phase("computes back to back, dry run", server.url, compute(true), { seconds }));
    results.push(await phase("computes back to back, persisted", server.url, compute(false), { seconds }));
    const ms = (x: number) => (Number.isNaN(x) ? "" : x.toFixed(1));
    console.log(
      `\nEvent loop of the API while a ${products}-product company computes ${days} days ` +
        `(PRICING_PLAN_THREADS=${process.env.PRICING_PLAN_THREADS ?? "default"}):\n`,
    );
    console.log(
      markdownTable(
        [
          "phase",
          "computes",
          "compute mean ms",
          "loop delay p99 ms",
          "loop delay max ms",
          "GET /healthz p50 ms",
          "p95 ms",
          "max ms",
        ],
        results.map((r) => [
          r.phase,
          String(r.computes),
          ms(r.computeMeanMs),
          ms(r.loopP99Ms),
          ms(r.loopMaxMs),
          ms(r.getP50Ms),
          ms(r.getP95Ms),
          ms(r.getMaxMs),
        ]),
      ),
    );
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
