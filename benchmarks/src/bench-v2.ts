/**
 * V2 sections of `pnpm bench:http`:
 * - GET /v2/recommendations of a persisted run (100 products x 30 days) at 32 connections, next to a bare Fastify
 *   route serving the same bytes in the same run (targets: p99 <= 25 ms, >= 80 % of the bare route's req/s); then
 *   both again with `Accept-Encoding: gzip`, as every partner's HTTP client sends it, the bare route serving the
 *   real route's gzipped bytes;
 * - GET /healthz latency while a training runs on the same server (target: max <= 100 ms);
 * - the nightly batch for 100 companies x 100 products x 90 days, in-process against a SQLite file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { gunzipSync } from "node:zlib";
import {
  createServerContext,
  demoScenario,
  loadConfig,
  runNightlyBatch,
  seedCompanyFromMarket,
  trainModel,
} from "@pricing/server";
import type { BenchFixture, Section, SectionResult } from "./http-section.js";
import { type LoadResult, runLoad } from "./load-generator.js";
import { markdownTable } from "./markdown-table.js";
import { processTreeSeconds } from "./process-cpu.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const READ_COMPANY = "bench-v2";
const TRAIN_COMPANY = "bench-train";
const CONNECTIONS = 32;

async function token(fixture: BenchFixture): Promise<string> {
  const res = await fetch(`${fixture.url}/public/v1/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(fixture.keys[0]),
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** How a read section asks: the JSON as it is, or gzipped. */
type Coding = "identity" | "gzip";

interface ReadSetup {
  token: string;
  bareUrl: string;
  bare: ChildProcess;
  bytes: Record<Coding, number>;
  /** Each coding's bare result, for the ratio of the real route's section that follows it. */
  bareResult: Partial<Record<Coding, SectionResult>>;
}

/** A GET with node:http, which leaves the body as the server coded it (fetch would decode it). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: res.headers["content-encoding"],
          body: Buffer.concat(chunks),
        }),
      );
      res.on("error", reject);
    }).on("error", reject);
  });
}

let setup: Promise<ReadSetup> | null = null;

/** Seeds the read company (100 products, a nightly run of 30 days) and the training company; starts the bare route. */
function prepare(fixture: BenchFixture): Promise<ReadSetup> {
  if (setup) return setup;
  setup = (async () => {
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
    const ctx = await createServerContext(
      loadConfig({}, { dataDir: fixture.dataDir, pricing: { runDays: 30, trainHorizonDays: 30 } }),
    );
    try {
      const partner = await ctx.repositories.partners.findCredentials(fixture.keys[0]!.access_key);
      if (!partner) throw new Error("bench partner missing");
      for (const [companyId, products, history] of [
        [READ_COMPANY, 100, 28],
        [TRAIN_COMPANY, 5, 120],
      ] as const) {
        await seedCompanyFromMarket(ctx, {
          companyId,
          name: companyId,
          timezone: "UTC",
          currency: "EUR",
          dir: path.join(fixture.dataDir, "csv"),
          scenario: demoScenario({
            name: companyId,
            today,
            seed: 5,
            products,
            tightStock: true,
            historyDays: history,
          }),
        });
        await ctx.repositories.companies.map(partner.partner_id, companyId);
      }
      await runNightlyBatch(ctx, { trigger: "cli", companyId: READ_COMPANY });
    } finally {
      await ctx.close();
    }
    const bearer = await token(fixture);
    const url = `${fixture.url}/v2/recommendations?company_id=${READ_COMPANY}`;
    const auth = { authorization: `Bearer ${bearer}` };
    const res = await rawGet(url, { ...auth, "accept-encoding": "identity" });
    const body = res.body;
    const parsed = JSON.parse(body.toString()) as { recommendations: unknown[] };
    if (res.status !== 200 || parsed.recommendations.length !== 3000) {
      throw new Error(`expected 3000 recommendations, got ${res.status} ${parsed.recommendations?.length}`);
    }
    const gzipped = await rawGet(url, { ...auth, "accept-encoding": "gzip" });
    if (gzipped.encoding !== "gzip" || !gunzipSync(gzipped.body).equals(body)) {
      throw new Error(`expected the same JSON gzipped, got ${gzipped.status} ${gzipped.encoding}`);
    }
    const file = path.join(fixture.dataDir, "bare-body.json");
    writeFileSync(file, body);
    writeFileSync(`${file}.gz`, gzipped.body);
    const bare = spawn(
      path.join(ROOT, "node_modules/.bin/tsx"),
      [path.join(ROOT, "benchmarks/src/bare-json-server.ts"), file, `${file}.gz`],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const bareUrl = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: bare.stdout! });
      bare.once("exit", (code) => reject(new Error(`bare server exited with ${code}`)));
      lines.on("line", (line) => {
        const url = (JSON.parse(line) as { url?: string }).url;
        if (url) resolve(url);
      });
    });
    process.once("exit", () => bare.kill("SIGTERM"));
    // Its output pipe must not keep the benchmark alive when a run skips the section that stops it.
    bare.unref();
    bare.stdout?.destroy();
    return {
      token: bearer,
      bareUrl,
      bare,
      bytes: { identity: body.byteLength, gzip: gzipped.body.byteLength },
      bareResult: {},
    };
  })();
  return setup;
}

/**
 * The load at `url` after a 2 s warm-up, with the CPU the process tree of `pid` spent per request while measured:
 * unlike req/s and latencies, it does not depend on what else the shared machine runs.
 */
async function measure(
  fixture: BenchFixture,
  pid: number | undefined,
  url: string,
  headers: Record<string, string>,
  duration: number,
): Promise<LoadResult & { cpuUsPerRequest: number | null }> {
  const spec = { url, headers, connections: CONNECTIONS, seconds: duration, scratchDir: fixture.dataDir };
  await runLoad({ ...spec, seconds: 2 }, 0);
  const before = pid === undefined ? null : processTreeSeconds(pid);
  const result = await runLoad(spec, 0);
  const after = pid === undefined ? null : processTreeSeconds(pid);
  const cpuUsPerRequest =
    before === null || after === null || result.requests === 0
      ? null
      : ((after - before) * 1e6) / result.requests;
  return { ...result, cpuUsPerRequest };
}

const ACCEPT: Record<Coding, Record<string, string>> = {
  identity: {},
  gzip: { "accept-encoding": "gzip" },
};

function bareRoute(coding: Coding, name: string): Section {
  return {
    name,
    async run(fixture, opts) {
      const s = await prepare(fixture);
      const result = await measure(
        fixture,
        s.bare.pid,
        `${s.bareUrl}/v2/recommendations`,
        ACCEPT[coding],
        opts.duration,
      );
      const bare = {
        name: `${name} (${(s.bytes[coding] / 1024).toFixed(0)} KiB)`,
        ...result,
        target: "yardstick",
        pass: null,
      };
      s.bareResult[coding] = bare;
      return bare;
    },
  };
}

/**
 * The real route next to its bare section. Identity's targets are the issue's; gzip's is the p99 alone: with the
 * body 12 times smaller the bare route costs ~27 µs of CPU a request, less than the bearer check, run lookup,
 * rate limit and log line of any real request, so its ratio is reported, not targeted.
 */
function readRecommendations(coding: Coding, name: string): Section {
  return {
    name,
    async run(fixture, opts) {
      const s = await prepare(fixture);
      const result = await measure(
        fixture,
        fixture.serverPid,
        `${fixture.url}/v2/recommendations?company_id=${READ_COMPANY}`,
        { authorization: `Bearer ${s.token}`, ...ACCEPT[coding] },
        opts.duration,
      );
      const bare = s.bareResult[coding];
      const ratio = bare ? result.rps / bare.rps : Number.NaN;
      const ratioMet = coding === "gzip" || ratio >= 0.8;
      return {
        name: `${name} (${(100 * ratio).toFixed(0)} % of bare)`,
        ...result,
        target: coding === "gzip" ? "p99<=25" : "p99<=25, >=80% bare",
        pass: result.p99 <= 25 && ratioMet && result.non2xx === 0 && result.errors === 0,
      };
    },
  };
}

const healthzWhileTraining: Section = {
  name: "GET /healthz during a training",
  async run(fixture) {
    const s = await prepare(fixture);
    s.bare.kill("SIGTERM");
    let done = false;
    const started = performance.now();
    const train = fetch(`${fixture.url}/v2/model/train`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify({ company_id: TRAIN_COMPANY }),
    }).then(async (res) => {
      done = true;
      if (res.status !== 200) throw new Error(`training failed: ${res.status} ${await res.text()}`);
    });
    const latencies: number[] = [];
    while (!done) {
      const t0 = performance.now();
      const res = await fetch(`${fixture.url}/healthz`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    await train;
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    const max = latencies[latencies.length - 1] ?? 0;
    return {
      name: `${this.name} (${seconds.toFixed(1)} s, max ${max.toFixed(1)} ms)`,
      requests: latencies.length,
      rps: latencies.length / seconds,
      p50: at(0.5),
      p99: at(0.99),
      non2xx: 0,
      errors: 0,
      target: "max <= 100 ms",
      pass: max <= 100,
    };
  },
};

/**
 * Read-path sections, in run order: each coding's bare route first, as its read section reports the ratio to it.
 * The identity pair keeps the names the acceptance names; `--only "GET bare,GET /v2"` runs all four.
 */
export const v2Sections: Section[] = [
  bareRoute("identity", "GET bare Fastify, same JSON bytes"),
  readRecommendations("identity", "GET /v2/recommendations 100 x 30"),
  bareRoute("gzip", "GET bare Fastify, same gzip bytes"),
  readRecommendations("gzip", "GET /v2/recommendations 100 x 30 gzip"),
  healthzWhileTraining,
];

export interface BatchBenchResult {
  companies: number;
  products: number;
  days: number;
  rlCompanies: number;
  seedSeconds: number;
  trainSeconds: number;
  batchSeconds: number;
  rows: number;
  ruleMeanSeconds: number;
  rlMeanSeconds: number;
  rerunSeconds: number;
}

/** The nightly batch for `companies` x `products` x `days` (a few companies on a trained policy, the rest on the rule). */
export async function benchNightlyBatch(options: {
  companies: number;
  products: number;
  days: number;
  rlCompanies: number;
}): Promise<BatchBenchResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-batch-"));
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
  const ctx = await createServerContext(
    loadConfig(
      {},
      {
        dataDir,
        logLevel: "silent",
        pricing: {
          runDays: options.days,
          trainHorizonDays: options.days,
          trainSeconds: 2,
          minHistoryDays: 28,
        },
      },
    ),
  );
  try {
    const t0 = performance.now();
    for (let i = 0; i < options.companies; i++) {
      await seedCompanyFromMarket(ctx, {
        companyId: `co-${String(i).padStart(3, "0")}`,
        name: `Company ${i}`,
        timezone: "UTC",
        currency: "EUR",
        dir: path.join(dataDir, "csv"),
        scenario: demoScenario({
          name: `co-${i}`,
          today,
          seed: 1000 + i,
          products: options.products,
          tightStock: i % 2 === 0,
          horizon: options.days,
          historyDays: 42,
        }),
      });
    }
    const seedSeconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    for (let i = 0; i < options.rlCompanies; i++) {
      await trainModel(ctx, { company_id: `co-${String(i).padStart(3, "0")}`, auto_approve: true });
    }
    const trainSeconds = (performance.now() - t1) / 1000;
    const t2 = performance.now();
    const report = await runNightlyBatch(ctx, { trigger: "cli" });
    const batchSeconds = (performance.now() - t2) / 1000;
    const failed = report.companies.filter((c) => c.status !== "created");
    if (failed.length > 0)
      throw new Error(`batch: ${failed.length} companies not created: ${failed[0]?.error}`);
    const t3 = performance.now();
    await runNightlyBatch(ctx, { trigger: "cli" });
    const rerunSeconds = (performance.now() - t3) / 1000;
    const rows = await ctx.db
      .selectFrom("runs")
      .select((eb) => eb.fn.sum<number>("recommendation_count").as("n"))
      .executeTakeFirstOrThrow();
    const rl = report.companies.slice(0, options.rlCompanies);
    const rule = report.companies.slice(options.rlCompanies);
    const mean = (list: typeof rl) =>
      list.length ? list.reduce((s, c) => s + c.seconds, 0) / list.length : 0;
    return {
      ...options,
      seedSeconds,
      trainSeconds,
      batchSeconds,
      rows: Number(rows.n),
      ruleMeanSeconds: mean(rule),
      rlMeanSeconds: mean(rl),
      rerunSeconds,
    };
  } finally {
    await ctx.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function batchTable(r: BatchBenchResult): string {
  const rows: [string, string][] = [
    ["companies x products x days", `${r.companies} x ${r.products} x ${r.days}`],
    ["companies on a trained policy", String(r.rlCompanies)],
    ["recommendation rows written", String(r.rows)],
    ["nightly batch, total", `${r.batchSeconds.toFixed(1)} s`],
    ["rows per second", (r.rows / r.batchSeconds).toFixed(0)],
    ["per company, rule source (mean)", `${(r.ruleMeanSeconds * 1000).toFixed(0)} ms`],
    ["per company, RL policy (mean)", r.rlCompanies ? `${(r.rlMeanSeconds * 1000).toFixed(0)} ms` : "-"],
    ["second batch the same day (all exist)", `${r.rerunSeconds.toFixed(2)} s`],
    ["(setup) seeding via CSV import", `${r.seedSeconds.toFixed(1)} s`],
    ["(setup) training", `${r.trainSeconds.toFixed(1)} s`],
  ];
  return markdownTable(["nightly batch", "value"], rows);
}
