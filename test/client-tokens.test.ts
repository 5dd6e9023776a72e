import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError, type FetchLike, PricingClient } from "@pricing/client";
import { loadConfig, type RunningServer, startServer } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliOk } from "./http-harness.js";

// Acceptance tests of issue 7 against the real server: loopback port, SQLite file in a temp data dir, partners
// and companies created with the server's own CLI code. The server's clock and the client's clock are both
// injected, so token expiry is reached without waiting.

const COMPANY = "client-co";

let dataDir: string;
let server: RunningServer;
let serverNowMs = Date.now();

interface Keys {
  partner_id: string;
  access_key: string;
  secret_key: string;
}

/** The operator CLI, in-process, on the server's data dir. */
const pricing = (...args: string[]) => cliOk(dataDir, ...args);

async function newPartner(name: string): Promise<Keys> {
  const keys = (await pricing("partner", "create", "--name", name)) as unknown as Keys;
  await pricing("company", "map", "--partner", keys.partner_id, "--company", COMPANY);
  return keys;
}

interface Exchange {
  kind: "token" | "data";
  url: string;
  status: number;
  /** Error code of a non-2xx answer. */
  code: string | null;
  bearer: string | null;
  body: string | null;
  headers: Record<string, string>;
}

/** Wraps the real fetch to record every request the client makes and what came back. */
function recordingFetch(afterToken?: () => void) {
  const log: Exchange[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    const headers = { ...(init.headers as Record<string, string>) };
    const code = response.ok
      ? null
      : ((await response.clone().json()) as { error: { code: string } }).error.code;
    const kind = url.endsWith("/auth/token") ? "token" : "data";
    log.push({
      kind,
      url,
      status: response.status,
      code,
      bearer: headers.authorization?.replace(/^Bearer /, "") ?? null,
      body: typeof init.body === "string" ? init.body : null,
      headers,
    });
    if (kind === "token" && response.ok) afterToken?.();
    return response;
  };
  return {
    fetchFn,
    log,
    exchanges: () => log.filter((e) => e.kind === "token").length,
    data: () => log.filter((e) => e.kind === "data"),
  };
}

function clientFor(keys: Keys, fetchFn: FetchLike, now?: () => number): PricingClient {
  return new PricingClient({
    baseUrl: `${server.url}/public/v1`,
    accessKey: keys.access_key,
    secretKey: keys.secret_key,
    fetch: fetchFn,
    ...(now ? { now } : {}),
  });
}

/** A call that needs a valid token: the model report of a company with no artifact (so the rule backs it). */
async function authorizedCall(client: PricingClient): Promise<void> {
  const report = await client.getModel({ company_id: COMPANY });
  expect(report).toMatchObject({ company_id: COMPANY, source: "rule", model_id: null });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-client-"));
  server = await startServer(loadConfig({}, { dataDir, host: "127.0.0.1", port: 0, logLevel: "silent" }), {
    clock: () => new Date(serverNowMs),
  });
  await pricing("company", "create", "--id", COMPANY, "--name", "Client Test Co");
});

afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("token lifetime", () => {
  it("re-exchanges a token near expiry before using it (client clock)", async () => {
    const keys = await newPartner("near-expiry");
    let clientNowMs = Date.now();
    const rec = recordingFetch();
    const client = clientFor(keys, rec.fetchFn, () => clientNowMs);

    await authorizedCall(client);
    clientNowMs += 839_000; // 61 s before expiry: still used
    await authorizedCall(client);
    expect(rec.exchanges()).toBe(1);
    clientNowMs += 1_000; // 60 s before expiry: replaced before the request goes out
    await authorizedCall(client);

    expect(rec.log.map((e) => e.kind)).toEqual(["token", "data", "data", "token", "data"]);
    const [first, second, third] = rec.data();
    expect(second?.bearer).toBe(first?.bearer);
    expect(third?.bearer).not.toBe(first?.bearer);
    expect(rec.log.some((e) => e.status === 401)).toBe(false);
  });

  it("after a 401 for an expired token, re-exchanges and retries the call once", async () => {
    const keys = await newPartner("expired");
    const rec = recordingFetch();
    const client = clientFor(keys, rec.fetchFn, () => Date.now());

    await authorizedCall(client);
    serverNowMs += 901_000; // the server sees the token expired; the client still thinks it fresh
    await authorizedCall(client);

    expect(rec.log.map((e) => [e.kind, e.status === 401 ? e.code : "ok"])).toEqual([
      ["token", "ok"],
      ["data", "ok"],
      ["data", "token_expired"],
      ["token", "ok"],
      ["data", "ok"],
    ]);
    const data = rec.data();
    expect(data[2]?.bearer).not.toBe(data[1]?.bearer);
  });

  it("surfaces a second 401 as ApiError without retrying again", async () => {
    const keys = await newPartner("dead-on-arrival");
    // Every token the server mints is expired by the time it is used: the server clock jumps after each exchange.
    const rec = recordingFetch(() => {
      serverNowMs += 901_000;
    });
    const client = clientFor(keys, rec.fetchFn);

    const error = await client.getModel({ company_id: COMPANY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError).toMatchObject({ status: 401, code: "token_expired", operation: "getModel" });
    expect(apiError.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(rec.log.map((e) => [e.kind, e.status])).toEqual([
      ["token", 200],
      ["data", 401],
      ["token", 200],
      ["data", 401],
    ]);
  });
});

describe("single-flight exchange", () => {
  it("20 concurrent calls with no token cause exactly one exchange", async () => {
    const keys = await newPartner("concurrent");
    const rec = recordingFetch();
    const client = clientFor(keys, rec.fetchFn);

    await Promise.all(Array.from({ length: 20 }, () => authorizedCall(client)));

    expect(rec.exchanges()).toBe(1);
    expect(rec.data()).toHaveLength(20);
    expect(new Set(rec.data().map((e) => e.bearer)).size).toBe(1);
  });

  it("20 concurrent calls refused with the same expired token share one re-exchange", async () => {
    const keys = await newPartner("concurrent-401");
    const rec = recordingFetch();
    const client = clientFor(keys, rec.fetchFn);
    await authorizedCall(client);
    serverNowMs += 901_000;

    await Promise.all(Array.from({ length: 20 }, () => authorizedCall(client)));

    expect(rec.exchanges()).toBe(2);
    const data = rec.data().slice(1);
    expect(data.filter((e) => e.status === 401)).toHaveLength(20);
    expect(data.filter((e) => e.status !== 401)).toHaveLength(20);
  });
});

describe("key rotation", () => {
  it("the old client works until its token expires, then fails with invalid_credentials", async () => {
    const oldKeys = await newPartner("rotating");
    let clientNowMs = Date.now();
    const rec = recordingFetch();
    const oldClient = clientFor(oldKeys, rec.fetchFn, () => clientNowMs);
    await authorizedCall(oldClient);

    const newKeys = (await pricing("partner", "rotate-keys", oldKeys.partner_id)) as unknown as Keys;
    expect(newKeys.access_key).not.toBe(oldKeys.access_key);

    // The token minted from the old pair stays valid: no new exchange, no 401.
    clientNowMs += 600_000;
    await authorizedCall(oldClient);
    expect(rec.exchanges()).toBe(1);
    expect(rec.log.some((e) => e.status === 401)).toBe(false);

    const newRec = recordingFetch();
    await authorizedCall(clientFor(newKeys, newRec.fetchFn));
    expect(newRec.exchanges()).toBe(1);

    // Near expiry the old client must exchange again, and its superseded keys no longer mint tokens.
    clientNowMs += 240_000;
    const error = await oldClient.getModel({ company_id: COMPANY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: "invalid_credentials", operation: "exchangeToken" });
    expect(rec.log.at(-1)).toMatchObject({ kind: "token", status: 401, code: "invalid_credentials" });
    const bearers = rec.log.flatMap((e) => (e.bearer === null ? [] : [e.bearer]));
    for (const secret of [oldKeys.secret_key, oldKeys.access_key, ...bearers]) {
      expect(String((error as Error).stack)).not.toContain(secret);
    }
  });

  it("when the server expires the old token first, the 401 retry fails with invalid_credentials", async () => {
    const oldKeys = await newPartner("rotating-server-expiry");
    const rec = recordingFetch();
    const oldClient = clientFor(oldKeys, rec.fetchFn, () => Date.now());
    await authorizedCall(oldClient);
    await pricing("partner", "rotate-keys", oldKeys.partner_id);
    await authorizedCall(oldClient);

    serverNowMs += 901_000;
    await expect(oldClient.getModel({ company_id: COMPANY })).rejects.toMatchObject({
      name: "ApiError",
      status: 401,
      code: "invalid_credentials",
    });
    expect(rec.log.map((e) => [e.kind, e.status])).toEqual([
      ["token", 200],
      ["data", 200],
      ["data", 200],
      ["data", 401],
      ["token", 401],
    ]);
  });
});

describe("what goes over the wire", () => {
  it("sends the keys to POST /auth/token only, and nothing secret anywhere else", async () => {
    const keys = await newPartner("wire");
    const rec = recordingFetch();
    const client = clientFor(keys, rec.fetchFn);
    await authorizedCall(client);
    await client.listRuns({ company_id: COMPANY }).catch(() => undefined);
    await client
      .computeRecommendations({ company_id: COMPANY, dry_run: true }, { timeoutMs: 5_000 })
      .catch(() => {
        // Computing may fail or time out here; only what was sent matters.
      });

    const token = rec.log.filter((e) => e.kind === "token");
    expect(token).toHaveLength(1);
    expect(token[0]?.url).toBe(`${server.url}/public/v1/auth/token`);
    expect(JSON.parse(token[0]?.body ?? "{}")).toEqual({
      access_key: keys.access_key,
      secret_key: keys.secret_key,
    });
    expect(token[0]?.bearer).toBeNull();
    for (const e of rec.data()) {
      const wire = `${e.url} ${JSON.stringify(e.headers)} ${e.body ?? ""}`;
      expect(wire).not.toContain(keys.secret_key);
      expect(wire).not.toContain(keys.access_key);
      expect(e.bearer).toMatch(/^eyJ/);
    }
  });

  it("reports the server's error envelope as a typed ApiError", async () => {
    const keys = await newPartner("errors");
    const rec = recordingFetch();
    const client = clientFor(keys, rec.fetchFn);

    const notMapped = await client.getModel({ company_id: "someone-else" }).catch((e: unknown) => e);
    expect(notMapped).toBeInstanceOf(ApiError);
    expect(notMapped).toMatchObject({ status: 404, code: "company_not_found", operation: "getModel" });
    expect((notMapped as ApiError).requestId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );

    const invalid = await client
      .getRecommendations({ company_id: COMPANY, runs_ago: -1 })
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: "validation_error" });
    expect((invalid as ApiError).message).toContain("runs_ago");

    const badKeys = clientFor({ ...keys, secret_key: `${keys.secret_key}x` }, rec.fetchFn);
    const refused = await badKeys.exchangeToken().catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, code: "invalid_credentials" });
    expect((refused as Error).message).not.toContain(keys.secret_key);
  });
});
