import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Partner, startHarness } from "./http-harness.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectEnvelope(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "request_id"]);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toMatch(UUID);
  expect(res.headers["x-request-id"]).toBe(body.error.request_id);
  return body.error as { code: string; message: string; request_id: string };
}

describe("error envelope for framework errors", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.destroy());

  it("404 not_found for an unknown route, and the request id is in the log line", async () => {
    const res = await h.app.inject({ method: "GET", url: "/public/v1/nope" });
    const error = expectEnvelope(res, 404, "not_found");
    expect(h.logs.some((l) => l.includes(`"request_id":"${error.request_id}"`))).toBe(true);
  });

  it("405 method_not_allowed with Allow for a known path and another method; 404 for an unknown path", async () => {
    for (const [method, url, allow] of [
      ["TRACE", "/public/v1/v2/runs?company_id=x", "GET, HEAD"],
      ["PUT", "/v2/runs", "GET, HEAD"],
      ["DELETE", "/public/v1/auth/token", "POST"],
      ["GET", "/public/v1/v2/model/train", "POST"],
      ["PATCH", "/healthz", "GET, HEAD"],
    ] as const) {
      const res = await h.app.inject({ method, url });
      const error = expectEnvelope(res, 405, "method_not_allowed");
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
      expect(error.message).toContain(allow);
    }
    expectEnvelope(await h.app.inject({ method: "PUT", url: "/public/v1/v2/nope" }), 404, "not_found");
  });

  it("400 validation_error for malformed JSON", async () => {
    const res = await h.app.inject({
      method: "POST",
      url: "/public/v1/auth/token",
      headers: { "content-type": "application/json" },
      payload: '{"access_key": "ak_1", ',
    });
    expectEnvelope(res, 400, "validation_error");
  });

  it("400 validation_error naming the field for missing, unknown and ill-typed fields", async () => {
    const missing = await h.app.inject({
      method: "POST",
      url: "/public/v1/auth/token",
      payload: { access_key: "a" },
    });
    expect(expectEnvelope(missing, 400, "validation_error").message).toContain("secret_key");
    const unknown = await h.app.inject({
      method: "POST",
      url: "/public/v1/auth/token",
      payload: { access_key: "a", secret_key: "b", scope: "all" },
    });
    expect(expectEnvelope(unknown, 400, "validation_error").message).toContain("scope");
    const typed = await h.app.inject({
      method: "POST",
      url: "/public/v1/auth/token",
      payload: { access_key: 42, secret_key: "b" },
    });
    expect(expectEnvelope(typed, 400, "validation_error").message).toContain("access_key");
  });

  it("413 payload_too_large over 64 KiB", async () => {
    const res = await h.app.inject({
      method: "POST",
      url: "/public/v1/auth/token",
      payload: { access_key: "a".repeat(70 * 1024), secret_key: "b" },
    });
    expectEnvelope(res, 413, "payload_too_large");
  });

  it("415 unsupported_media_type for a body that is not application/json", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await h.app.inject({
        method: "POST",
        url: "/public/v1/auth/token",
        headers: { "content-type": type },
        payload: "access_key=a&secret_key=b",
      });
      expectEnvelope(res, 415, "unsupported_media_type");
    }
  });

  it("serves /healthz, /readyz, the OpenAPI document and the docs page without a token", async () => {
    expect((await h.app.inject({ url: "/healthz" })).json()).toEqual({ status: "ok" });
    expect((await h.app.inject({ url: "/readyz" })).json()).toEqual({ status: "ok" });
    expect((await h.app.inject({ url: "/public/v1/openapi.json" })).json().openapi).toBe("3.1.0");
    const docs = await h.app.inject({ url: "/public/v1/docs" });
    expect([200, 302]).toContain(docs.statusCode);
  });

  it("sends no CORS headers at all by default", async () => {
    const get = await h.app.inject({ url: "/healthz", headers: { origin: "https://app.example.com" } });
    expect(get.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await h.app.inject({
      method: "OPTIONS",
      url: "/public/v1/auth/token",
      headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
    expectEnvelope(preflight, 405, "method_not_allowed");
    expect(preflight.headers.allow).toBe("POST");
  });
});

describe("CORS allowlist", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ corsOrigins: ["https://app.example.com"] });
  });
  afterAll(async () => h.destroy());

  it("allows a listed origin exactly and nothing else", async () => {
    const preflight = await h.app.inject({
      method: "OPTIONS",
      url: "/public/v1/auth/token",
      headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.statusCode).toBeLessThan(300);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    for (const origin of [
      "https://evil.example.com",
      "https://app.example.com.evil.io",
      "http://app.example.com",
    ]) {
      const res = await h.app.inject({ url: "/healthz", headers: { origin } });
      expect(res.headers["access-control-allow-origin"], origin).toBeUndefined();
    }
    const listed = await h.app.inject({ url: "/healthz", headers: { origin: "https://app.example.com" } });
    expect(listed.headers["access-control-allow-origin"]).toBe("https://app.example.com");
  });

  it("refuses a wildcard origin in the configuration", async () => {
    await expect(startHarness({ corsOrigins: ["*"] })).rejects.toThrow(/never '\*'/);
  });
});

describe("rate limits", () => {
  let h: Harness;
  let partner: Partner;
  beforeAll(async () => {
    h = await startHarness({
      rateLimits: {
        tokenPerKey: { max: 3, windowMs: 60_000 },
        tokenPerAddress: { max: 6, windowMs: 60_000 },
        dataPerPartner: { max: 4, windowMs: 60_000 },
      },
    });
    partner = await h.partnerWithCompany();
  });
  afterAll(async () => h.destroy());

  it("limits the token endpoint per access key, then per client address, with 429 and Retry-After", async () => {
    const send = (access_key: string, ip = "10.0.0.1") =>
      h.app.inject({
        method: "POST",
        url: "/public/v1/auth/token",
        remoteAddress: ip,
        payload: { access_key, secret_key: partner.secret_key },
      });
    for (let i = 0; i < 3; i++) expect((await send(partner.access_key)).statusCode).toBe(200);
    const limited = await send(partner.access_key);
    expectEnvelope(limited, 429, "rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // Same key from another address is still limited: the limit is per key.
    expect((await send(partner.access_key, "10.0.0.2")).statusCode).toBe(429);
    // Other keys from the first address count against its per-address limit (6): 4 used, 2 left.
    expect((await send("ak_other1")).statusCode).toBe(401);
    expect((await send("ak_other2")).statusCode).toBe(401);
    expectEnvelope(await send("ak_other3"), 429, "rate_limited");
  });

  it("limits data endpoints per partner", async () => {
    // The old key is rate limited by the previous test; fresh credentials have their own budget.
    const rotated = await h.cli("partner", "rotate-keys", partner.partner_id);
    const token = await h.token({ access_key: rotated.json.access_key, secret_key: rotated.json.secret_key });
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const res = await h.app.inject({
        url: `/v2/runs?company_id=${partner.company_id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 4)).not.toContain(429);
    expect(statuses[4]).toBe(429);
  });
});
