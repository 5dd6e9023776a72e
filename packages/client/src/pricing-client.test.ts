import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, NetworkError, TimeoutError } from "./errors.js";
import { type FetchLike, PricingClient } from "./pricing-client.js";

// Transport-level behaviour that the real server cannot be made to show on demand (hanging answers, proxies,
// arbitrary Retry-After values). Token handling against the real server is covered in test/client-*.test.ts.

const SECRET = "sk_0123456789abcdef0123456789abcdef";
const ACCESS = "ak_fedcba9876543210";
const TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwMSJ9.c2lnbmF0dXJl";

interface Seen {
  url: string;
  init: RequestInit;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function envelope(status: number, code: string, message: string, headers: Record<string, string> = {}) {
  return json(
    status,
    { error: { code, message, request_id: "5d7c2f1e-3b1a-4c55-9e0b-1f2a3b4c5d6e" } },
    headers,
  );
}

/** A fake API: the token endpoint answers, data routes answer with `data(seen)`. */
function fakeApi(data: (seen: Seen) => Promise<Response> | Response) {
  const seen: Seen[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const entry = { url, init };
    seen.push(entry);
    if (url.endsWith("/auth/token"))
      return json(200, { access_token: TOKEN, token_type: "Bearer", expires_in: 900 });
    return data(entry);
  };
  return { fetchFn, seen };
}

/** A data route that never answers, only rejects when its request is aborted. */
function hanging(seen: Seen): Promise<Response> {
  return new Promise((_resolve, reject) => {
    const signal = seen.init.signal as AbortSignal;
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

function client(fetchFn: FetchLike, extra: Partial<ConstructorParameters<typeof PricingClient>[0]> = {}) {
  return new PricingClient({
    baseUrl: "http://api.test/public/v1",
    accessKey: ACCESS,
    secretKey: SECRET,
    fetch: fetchFn,
    ...extra,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("deadlines", () => {
  it.each([
    ["trainModel", 360_000, (c: PricingClient) => c.trainModel({ company_id: "c1" })],
    ["computeRecommendations", 120_000, (c: PricingClient) => c.computeRecommendations({ company_id: "c1" })],
    ["getModel", 30_000, (c: PricingClient) => c.getModel({ company_id: "c1" })],
    ["listRuns", 30_000, (c: PricingClient) => c.listRuns({ company_id: "c1" })],
  ] as const)("%s times out after %i ms by default", async (operation, ms, call) => {
    vi.useFakeTimers();
    const api = fakeApi(hanging);
    const outcome = call(client(api.fetchFn)).then(
      () => "resolved",
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(ms - 1);
    let settled = false;
    void outcome.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ operation, timeoutMs: ms });
    // The in-flight request itself was aborted, not left running.
    const lastSignal = api.seen.at(-1)?.init.signal;
    expect(lastSignal?.aborted).toBe(true);
  });

  it("takes overrides from the client and from the call", async () => {
    const api = fakeApi(hanging);
    const c = client(api.fetchFn, { timeouts: { getModel: 20 } });
    await expect(c.getModel({ company_id: "c1" })).rejects.toMatchObject({
      name: "TimeoutError",
      timeoutMs: 20,
    });
    await expect(c.listRuns({ company_id: "c1" }, { timeoutMs: 15 })).rejects.toMatchObject({
      name: "TimeoutError",
      timeoutMs: 15,
    });
  });

  it("rejects with the caller's reason when the caller aborts", async () => {
    let reached: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const api = fakeApi((seen) => {
      reached();
      return hanging(seen);
    });
    const controller = new AbortController();
    const pending = client(api.fetchFn).getModel({ company_id: "c1" }, { signal: controller.signal });
    // Abort once the data request is on the wire, past the token exchange.
    await inFlight;
    controller.abort(new Error("user cancelled"));
    await expect(pending).rejects.toThrow("user cancelled");
    await expect(
      client(api.fetchFn).getModel({ company_id: "c1" }, { signal: AbortSignal.abort(new Error("already")) }),
    ).rejects.toThrow("already");
  });
});

describe("rate limits", () => {
  it("surfaces a 429 as ApiError with retryAfterSeconds unless the caller opted in", async () => {
    const api = fakeApi(() =>
      envelope(429, "rate_limited", "Too many requests; retry later.", { "retry-after": "7" }),
    );
    const error = await client(api.fetchFn)
      .getModel({ company_id: "c1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 7 });
    expect(api.seen.filter((s) => !s.url.endsWith("/auth/token"))).toHaveLength(1);
  });

  it("waits as Retry-After says (seconds or HTTP-date) and retries when opted in", async () => {
    const nowMs = Date.parse("2026-11-21T10:00:00Z");
    const answers = [
      envelope(429, "rate_limited", "slow down", { "retry-after": "3" }),
      envelope(429, "rate_limited", "slow down", { "retry-after": "Sat, 21 Nov 2026 10:00:05 GMT" }),
      json(200, { company_id: "c1", total: 0, runs: [] }),
    ];
    const api = fakeApi(() => answers.shift() ?? envelope(500, "internal_error", "unexpected"));
    const waits: number[] = [];
    const c = client(api.fetchFn, {
      now: () => nowMs,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const result = await c.listRuns({ company_id: "c1" }, { retryOnRateLimit: true });
    expect(result.total).toBe(0);
    expect(waits).toEqual([3000, 5000]);
  });

  it("gives up when the wait exceeds maxWaitMs or the retries run out", async () => {
    const api = fakeApi(() => envelope(429, "rate_limited", "slow down", { "retry-after": "120" }));
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const c = client(api.fetchFn, { sleep, retryOnRateLimit: { maxWaitMs: 60_000 } });
    await expect(c.getModel({ company_id: "c1" })).rejects.toMatchObject({ code: "rate_limited" });
    expect(waits).toEqual([]);

    const api2 = fakeApi(() => envelope(429, "rate_limited", "slow down", { "retry-after": "1" }));
    const c2 = client(api2.fetchFn, { sleep, retryOnRateLimit: { maxRetries: 2 } });
    await expect(c2.getModel({ company_id: "c1" })).rejects.toMatchObject({ code: "rate_limited" });
    expect(api2.seen.filter((s) => !s.url.endsWith("/auth/token"))).toHaveLength(3);
  });
});

describe("errors", () => {
  it("reads the envelope into ApiError fields", async () => {
    const api = fakeApi(() => envelope(404, "company_not_found", "Company not found."));
    await expect(client(api.fetchFn).getModel({ company_id: "c1" })).rejects.toMatchObject({
      name: "ApiError",
      status: 404,
      code: "company_not_found",
      message: "Company not found.",
      requestId: "5d7c2f1e-3b1a-4c55-9e0b-1f2a3b4c5d6e",
      operation: "getModel",
    });
  });

  it("turns a non-envelope answer into unexpected_response without echoing the body", async () => {
    const api = fakeApi(
      () =>
        new Response("<html>502 Bad Gateway</html>", { status: 502, headers: { "x-request-id": "rid-9" } }),
    );
    const error = await client(api.fetchFn)
      .getModel({ company_id: "c1" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: "unexpected_response", requestId: "rid-9" });
    expect((error as Error).message).not.toContain("html");
  });

  it("never repeats a key or token in a message, even when the server echoes them", async () => {
    const api = fakeApi(() =>
      envelope(400, "validation_error", `bad request from ${ACCESS} with ${SECRET} and Bearer ${TOKEN}`),
    );
    const error = (await client(api.fetchFn)
      .getModel({ company_id: "c1" })
      .catch((e: unknown) => e)) as ApiError;
    for (const secret of [SECRET, ACCESS, TOKEN]) {
      expect(error.message).not.toContain(secret);
      expect(JSON.stringify(error)).not.toContain(secret);
      expect(String(error.stack)).not.toContain(secret);
    }
    expect(error.message).toContain("[redacted]");
  });

  it("keeps the keys and the token out of the client's printed form", async () => {
    const api = fakeApi(() => json(200, {}));
    const c = client(api.fetchFn);
    await c.getModel({ company_id: "c1" });
    for (const printed of [inspect(c, { depth: 10, showHidden: true }), JSON.stringify(c), String(c)]) {
      for (const secret of [SECRET, TOKEN]) expect(printed).not.toContain(secret);
    }
  });

  it("rejects a token response without a usable token, without echoing it", async () => {
    const fetchFn: FetchLike = async () =>
      json(200, { access_token: TOKEN, token_type: "Bearer", expires_in: "900" });
    const error = await client(fetchFn)
      .getModel({ company_id: "c1" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "ApiError",
      code: "unexpected_response",
      operation: "exchangeToken",
    });
    expect(String((error as Error).stack)).not.toContain(TOKEN);
  });

  it("wraps a refused connection in NetworkError without request details", async () => {
    const c = new PricingClient({ baseUrl: "http://127.0.0.1:1", accessKey: ACCESS, secretKey: SECRET });
    const error = await c.getModel({ company_id: "c1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).not.toContain(SECRET);
  });
});

describe("requests", () => {
  it("sends the keys only to the token endpoint and the bearer token only to data routes", async () => {
    const api = fakeApi(() => json(200, { company_id: "c1", total: 0, runs: [] }));
    const c = client(api.fetchFn);
    await c.listRuns({ company_id: "c1", limit: 5 });
    await c.computeRecommendations({ company_id: "c1", dry_run: true }).catch(() => undefined);
    const [exchange, ...data] = api.seen;
    expect(exchange?.url).toBe("http://api.test/public/v1/auth/token");
    expect(JSON.parse(String(exchange?.init.body))).toEqual({ access_key: ACCESS, secret_key: SECRET });
    expect(JSON.stringify(exchange?.init.headers)).not.toContain("uthorization");
    expect(data.map((s) => s.url)).toEqual([
      "http://api.test/public/v1/v2/runs?company_id=c1&limit=5",
      "http://api.test/public/v1/v2/recommendations/compute",
    ]);
    for (const s of data) {
      const wire = `${s.url} ${JSON.stringify(s.init.headers)} ${String(s.init.body)}`;
      expect(wire).not.toContain(SECRET);
      expect(wire).not.toContain(ACCESS);
      expect((s.init.headers as Record<string, string>).authorization).toBe(`Bearer ${TOKEN}`);
      expect(s.init.redirect).toBe("error");
    }
  });

  it("accepts a bare origin as baseUrl and rejects unusable ones", async () => {
    const api = fakeApi(() => json(200, {}));
    await client(api.fetchFn, { baseUrl: "http://api.test/" }).getModel({ company_id: "c 1" });
    expect(api.seen.map((s) => s.url)).toEqual([
      "http://api.test/public/v1/auth/token",
      "http://api.test/public/v1/v2/model?company_id=c+1",
    ]);
    expect(() => client(api.fetchFn, { baseUrl: "api.test" })).toThrow(TypeError);
    expect(() => client(api.fetchFn, { baseUrl: "http://user:pw@api.test" })).toThrow(TypeError);
  });
});
