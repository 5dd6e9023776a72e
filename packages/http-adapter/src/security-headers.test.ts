import { describe, expect, it } from "vitest";
import { SECURITY_HEADERS } from "./security-headers.js";
import { bearer, COMPANY, startAdapterApp } from "./test-support/adapter-app.js";

const token = { access_token: "eyJ.x.y", token_type: "Bearer" as const, expires_in: 900 };

describe("security headers", () => {
  it("the token response may not be stored: Cache-Control no-store and Pragma no-cache (RFC 6749 §5.1)", async () => {
    const { app } = await startAdapterApp({ auth: { exchangeToken: async () => token } });
    const res = await app.inject({
      method: "POST",
      url: "/public/v1/auth/token",
      payload: { access_key: "ak_1", secret_key: "sk_1" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers.pragma).toBe("no-cache");
  });

  it("X-Content-Type-Options: nosniff on every answer: data, token, errors, unknown routes, health, the document", async () => {
    const { app } = await startAdapterApp({
      openapi: {},
      auth: { exchangeToken: async () => token },
      pricing: { getModel: async () => Promise.reject(new Error("boom")) },
    });
    const answers = [
      await app.inject({
        url: "/public/v1/v2/model",
        query: { company_id: COMPANY },
        headers: await bearer(),
      }),
      await app.inject({ url: "/public/v1/v2/model", query: { company_id: COMPANY } }),
      await app.inject({
        method: "POST",
        url: "/public/v1/auth/token",
        payload: { access_key: "a", secret_key: "b" },
      }),
      await app.inject({
        method: "POST",
        url: "/public/v1/auth/token",
        payload: "{",
        headers: { "content-type": "application/json" },
      }),
      await app.inject({ url: "/nowhere" }),
      await app.inject({ url: "/healthz" }),
      await app.inject({ url: "/public/v1/openapi.json" }),
      await app.inject({ url: "/public/v1/docs" }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([500, 401, 200, 400, 404, 200, 200, 200]);
    for (const res of answers) expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("a Content-Security-Policy on the docs page that allows its own scripts and no framing elsewhere", async () => {
    const { app } = await startAdapterApp({ openapi: {} });
    const docs = await app.inject({ url: "/public/v1/docs/" });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers["content-type"]).toContain("text/html");
    const csp = String(docs.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toMatch(/script-src 'self'/);
    const api = await app.inject({ url: "/healthz" });
    expect(api.headers["content-security-policy"]).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it("the whole set on an answer, an error and an unknown route, with helmet's default values", async () => {
    const { app } = await startAdapterApp({ openapi: {} });
    const answers = [
      await app.inject({ url: "/healthz" }),
      await app.inject({ url: "/public/v1/v2/model", query: { company_id: COMPANY } }),
      await app.inject({ url: "/nowhere" }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 404]);
    // Written out here, not read from SECURITY_HEADERS, so that a changed value fails this test.
    const expected = {
      "content-security-policy": "default-src 'none';frame-ancestors 'none'",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-resource-policy": "same-origin",
      "origin-agent-cluster": "?1",
      "referrer-policy": "no-referrer",
      "strict-transport-security": "max-age=31536000; includeSubDomains",
      "x-content-type-options": "nosniff",
      "x-dns-prefetch-control": "off",
      "x-download-options": "noopen",
      "x-frame-options": "SAMEORIGIN",
      "x-permitted-cross-domain-policies": "none",
      "x-xss-protection": "0",
    };
    expect(Object.keys(SECURITY_HEADERS).sort()).toEqual(Object.keys(expected).sort());
    for (const res of answers) {
      for (const [name, value] of Object.entries(expected)) expect(res.headers[name], name).toBe(value);
    }
  });
});
