import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError, type FetchLike, PricingClient } from "@pricing/client";
import { loadConfig, type RunningServer, runCli, startServer } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The real server with a tight token limit (2 exchanges per key per 2 s), so that its 429 and Retry-After
// can be met in about two seconds of real time.

let dataDir: string;
let server: RunningServer;

async function createPartner(name: string): Promise<{ access_key: string; secret_key: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(["partner", "create", "--name", name, "--data-dir", dataDir, "--json"], {
    io: { out: (t) => out.push(t), err: (t) => err.push(t) },
    env: {},
  });
  if (code !== 0) throw new Error(`pricing partner create exited ${code}: ${err.join("")}`);
  return JSON.parse(out.join("")) as { access_key: string; secret_key: string };
}

function statusLog() {
  const statuses: number[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    statuses.push(response.status);
    return response;
  };
  return { fetchFn, statuses };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-client-429-"));
  const config = loadConfig(
    {},
    {
      dataDir,
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      rateLimits: { tokenPerKey: { max: 2, windowMs: 2_000 } },
    },
  );
  server = await startServer(config);
});

afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("429 from the token endpoint", () => {
  it("surfaces rate_limited with Retry-After when the caller did not opt in", async () => {
    const keys = await createPartner("no-retry");
    const log = statusLog();
    const client = new PricingClient({
      baseUrl: server.url,
      accessKey: keys.access_key,
      secretKey: keys.secret_key,
      fetch: log.fetchFn,
    });
    await client.exchangeToken();
    await client.exchangeToken();
    const error = await client.exchangeToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", operation: "exchangeToken" });
    expect((error as ApiError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(log.statuses).toEqual([200, 200, 429]);
  });

  it("waits as Retry-After says and succeeds when the caller opted in", async () => {
    const keys = await createPartner("retry");
    const log = statusLog();
    const waits: number[] = [];
    const client = new PricingClient({
      baseUrl: server.url,
      accessKey: keys.access_key,
      secretKey: keys.secret_key,
      fetch: log.fetchFn,
      retryOnRateLimit: { maxRetries: 2, maxWaitMs: 5_000 },
      sleep: (ms, signal) => {
        waits.push(ms);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(signal.reason);
          });
        });
      },
    });
    await client.exchangeToken();
    await client.exchangeToken();
    const started = performance.now();
    const token = await client.exchangeToken();
    expect(token.token_type).toBe("Bearer");
    expect(log.statuses.slice(0, 3)).toEqual([200, 200, 429]);
    expect(log.statuses.at(-1)).toBe(200);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(waits[0]).toBeGreaterThanOrEqual(1_000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(waits[0] ?? 0);
  });
});
