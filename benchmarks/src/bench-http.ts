/**
 * HTTP read-path benchmark against the real server in a child process (the `pricing serve` bin, SQLite file in a
 * temporary data dir, default `info` JSON logging), driven by `wrk` when it is on PATH, else autocannon (see
 * `load-generator.ts`; PRICING_BENCH_GENERATOR=autocannon forces the latter).
 *
 *   pnpm bench:http [--quick] [--duration SECONDS] [--connections N] [--only TEXT,...] [--skip-batch]
 *                  [--profile DIR]
 *
 * Sections: POST /public/v1/auth/token (token exchanges per second, target >= 2,000/s); then the V2 sections of
 * `bench-v2.ts`: GET /v2/recommendations (100 products x 30 days, 32 connections) next to a bare Fastify route
 * serving the same bytes, /healthz during a training, and the nightly batch (100 x 100 x 90; 10 companies with
 * --quick). Add a section by pushing onto SECTIONS.
 */
import type { ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createServerContext, issueCredentials, loadConfig, runCli } from "@pricing/server";
import { batchTable, benchNightlyBatch, v2Sections } from "./bench-v2.js";
import type { BenchFixture, Section, SectionResult } from "./http-section.js";
import { loadGenerator, runLoad } from "./load-generator.js";
import { markdownTable } from "./markdown-table.js";
import { initDataDir, startServerProcess, stopServerProcess } from "./server-process.js";

const PARTNERS = 50;
const COMPANY = "bench-co";

const tokenExchange: Section = {
  name: "POST /public/v1/auth/token",
  async run(fixture, opts) {
    // Round-robin over the partners' keys: deterministic, and each exchange does a real lookup, HMAC and signature.
    const result = await runLoad({
      url: `${fixture.url}/public/v1/auth/token`,
      method: "POST",
      headers: { "content-type": "application/json" },
      bodies: fixture.keys.map((k) => JSON.stringify(k)),
      connections: opts.connections,
      seconds: opts.duration,
      scratchDir: fixture.dataDir,
    });
    return {
      name: this.name,
      ...result,
      target: ">= 2000/s",
      pass: result.rps >= 2000 && result.non2xx === 0 && result.errors === 0,
    };
  },
};

/** Sections in run order. */
export const SECTIONS: Section[] = [tokenExchange, ...v2Sections];

async function seed(dataDir: string): Promise<BenchFixture["keys"]> {
  await initDataDir(dataDir);
  const quiet = { out: () => {}, err: (t: string) => process.stderr.write(t) };
  const code = await runCli(
    ["company", "create", "--id", COMPANY, "--name", "Bench", "--data-dir", dataDir],
    {
      io: quiet,
      env: {},
    },
  );
  if (code !== 0) throw new Error("could not create the bench company");
  const ctx = await createServerContext(loadConfig({}, { dataDir }));
  try {
    const keys: BenchFixture["keys"] = [];
    for (let i = 0; i < PARTNERS; i++) {
      const credentials = issueCredentials(ctx.pepper);
      const partner = await ctx.repositories.partners.create(`bench-${i}`, credentials);
      await ctx.repositories.companies.map(partner.partner_id, COMPANY);
      keys.push({ access_key: credentials.access_key, secret_key: credentials.secret_key });
    }
    return keys;
  } finally {
    await ctx.close();
  }
}

function table(results: SectionResult[]): string {
  const header = [
    "section",
    "requests",
    "req/s",
    "p50 ms",
    "p99 ms",
    "server CPU µs/req",
    "non-2xx",
    "errors",
    "target",
    "pass",
  ];
  const rows = results.map((r) => [
    r.name,
    String(r.requests),
    r.rps.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    r.cpuUsPerRequest == null ? "-" : r.cpuUsPerRequest.toFixed(0),
    String(r.non2xx),
    String(r.errors),
    r.target,
    r.pass === null ? "-" : r.pass ? "yes" : "NO",
  ]);
  return markdownTable(header, rows);
}

export async function benchHttp(opts: {
  duration: number;
  connections: number;
  /** Run only the sections whose name contains one of these comma-separated texts. */
  only?: string;
  /** Write a V8 CPU profile of the server process here. */
  profileDir?: string;
}): Promise<SectionResult[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "pricing-bench-http-"));
  let child: ChildProcess | undefined;
  try {
    const keys = await seed(dataDir);
    const server = await startServerProcess(dataDir, { profileDir: opts.profileDir });
    child = server.child;
    const fixture: BenchFixture = { url: server.url, serverPid: child.pid, dataDir, keys };
    const results: SectionResult[] = [];
    for (const section of SECTIONS) {
      const wanted = opts.only?.split(",");
      if (wanted && !wanted.some((w) => section.name.includes(w))) continue;
      results.push(await section.run(fixture, opts));
    }
    return results;
  } finally {
    if (child) await stopServerProcess(child);
    if (process.env.PRICING_BENCH_KEEP_LOG) {
      copyFileSync(path.join(dataDir, "server.log"), process.env.PRICING_BENCH_KEEP_LOG);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      duration: { type: "string" },
      connections: { type: "string", default: "20" },
      only: { type: "string" },
      "skip-batch": { type: "boolean", default: false },
      profile: { type: "string" },
    },
  });
  const duration = Number(values.duration ?? (values.quick ? 3 : 10));
  const connections = Number(values.connections);
  const results = await benchHttp({
    duration,
    connections,
    ...(values.only === undefined ? {} : { only: values.only }),
    ...(values.profile === undefined ? {} : { profileDir: path.resolve(values.profile) }),
  });
  console.log(
    `HTTP benchmark: load generator ${loadGenerator()}, ${duration} s per section, ${connections} connections ` +
      `(the V2 read sections: 32), ${PARTNERS} partners`,
  );
  console.log(table(results));
  if (!values["skip-batch"]) {
    const batch = await benchNightlyBatch(
      values.quick
        ? { companies: 10, products: 100, days: 90, rlCompanies: 1 }
        : { companies: 100, products: 100, days: 90, rlCompanies: 2 },
    );
    console.log(batchTable(batch));
  }
  // Targets are printed (the pass column), not asserted: a busy machine misses them. Failed requests are errors.
  if (results.some((r) => r.non2xx > 0 || r.errors > 0)) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
