import { mkdtemp, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type App, buildApp, issueCredentials, loadConfig } from "@pricing/server";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A database of its own on the local Redis, emptied first, so that counters of earlier runs do not count. */
const REDIS_URL = process.env.PRICING_TEST_REDIS_URL ?? "redis://127.0.0.1:6379/7";
const TOKEN_PER_KEY = 30;
const DATA_PER_PARTNER = 8;

/** Under CI always (a Redis that is down fails loudly); elsewhere only when reachable. */
async function redisReachable(): Promise<boolean> {
  if (process.env.CI) return true;
  const { hostname, port } = new URL(REDIS_URL);
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.once("connect", () => resolve(true));
    socket.once("error", () => resolve(false));
  }).catch(() => false);
  if (!reachable) process.stderr.write("Redis is not reachable: skipping the shared rate-limit test\n");
  return reachable;
}

/** Log lines a replica writes, parsed. */
function logCapture() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe.runIf(await redisReachable())("rate limits shared through Redis", () => {
  let dataDir: string;
  const apps: App[] = [];

  /** A replica over the shared data dir (one SQLite file and secrets), counting in `redisUrl` when given. */
  async function replica(redisUrl: string | undefined, logStream = logCapture().stream): Promise<App> {
    const config = loadConfig(
      {},
      {
        dataDir,
        logLevel: "warn",
        ...(redisUrl === undefined ? {} : { redisUrl }),
        rateLimits: {
          tokenPerKey: { max: TOKEN_PER_KEY, windowMs: 60_000 },
          dataPerPartner: { max: DATA_PER_PARTNER, windowMs: 60_000 },
        },
      },
    );
    const app = await buildApp(config, { logStream });
    apps.push(app);
    return app;
  }

  async function partner(app: App) {
    const keys = issueCredentials(app.ctx.pepper);
    await app.ctx.repositories.partners.create("Limited", {
      access_key: keys.access_key,
      secret_hash: keys.secret_hash,
      pepper_id: keys.pepper_id,
    });
    return { access_key: keys.access_key, secret_key: keys.secret_key };
  }

  const exchange = (app: App, keys: { access_key: string; secret_key: string }) =>
    app.app.inject({ method: "POST", url: "/public/v1/auth/token", payload: keys });
  const read = (app: App, token: string) =>
    app.app.inject({
      method: "GET",
      url: "/public/v1/v2/runs?company_id=nowhere",
      headers: { authorization: `Bearer ${token}` },
    });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-redis-limits-"));
    const redis = new Redis(REDIS_URL);
    await redis.flushdb();
    redis.disconnect();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`holds ${TOKEN_PER_KEY} token exchanges per key and the per-partner data limit across two replicas together`, async () => {
    const a = await replica(REDIS_URL);
    const b = await replica(REDIS_URL);
    const keys = await partner(a);
    const statuses: number[] = [];
    let token = "";
    for (let i = 0; i < TOKEN_PER_KEY + 2; i += 1) {
      const res = await exchange(i % 2 === 0 ? a : b, keys);
      statuses.push(res.statusCode);
      if (res.statusCode === 200) token = (res.json() as { access_token: string }).access_token;
    }
    expect(statuses.slice(0, TOKEN_PER_KEY)).toEqual(Array(TOKEN_PER_KEY).fill(200));
    expect(statuses.slice(TOKEN_PER_KEY)).toEqual([429, 429]);
    const refused = await exchange(a, keys);
    expect(refused.json()).toMatchObject({ error: { code: "rate_limited" } });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);

    const reads: number[] = [];
    for (let i = 0; i < DATA_PER_PARTNER + 2; i += 1)
      reads.push((await read(i % 2 === 0 ? b : a, token)).statusCode);
    expect(reads.slice(DATA_PER_PARTNER)).toEqual([429, 429]);
    expect(reads.slice(0, DATA_PER_PARTNER).every((s) => s !== 429)).toBe(true);
  });

  it("counts per process without PRICING_REDIS_URL: two replicas together let twice the limit through", async () => {
    const a = await replica(undefined);
    const b = await replica(undefined);
    const keys = await partner(a);
    const statuses: number[] = [];
    for (let i = 0; i < 2 * TOKEN_PER_KEY; i += 1)
      statuses.push((await exchange(i % 2 === 0 ? a : b, keys)).statusCode);
    expect(statuses).toEqual(Array(2 * TOKEN_PER_KEY).fill(200));
    expect((await exchange(b, keys)).statusCode).toBe(429);
  });

  it("lets requests through with a logged warning when Redis is down, instead of failing them", async () => {
    const log = logCapture();
    // Nothing listens on port 1: every counter operation fails.
    const down = await replica("redis://127.0.0.1:1", log.stream);
    const keys = await partner(down);
    const statuses: number[] = [];
    for (let i = 0; i < TOKEN_PER_KEY + 5; i += 1) statuses.push((await exchange(down, keys)).statusCode);
    expect(statuses).toEqual(Array(TOKEN_PER_KEY + 5).fill(200));
    const warnings = log.lines.filter((l) => l.level === 40).map((l) => l.msg);
    expect(warnings).toContain(
      "rate-limit store unreachable: requests pass unlimited until it answers again",
    );
    // One warning for the burst, not one per request.
    expect(warnings.filter((m) => m.startsWith("rate-limit store unreachable"))).toHaveLength(1);
  });
});
