import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { tokenResponseSchema } from "../schemas/auth.js";
import type { RequestContext } from "../services.js";
import {
  documentedErrors,
  expectError,
  PARTNER,
  startAdapterApp,
  tokens,
} from "../test-support/adapter-app.js";
import { AUTH_TOKEN_ERROR_CODES, type TokenRequest, type TokenResponse } from "./auth-token.js";

const keys = { access_key: "ak_acme", secret_key: "sk_right" };

/** The key exchange behind the route: one valid pair, the same refusal for anything else. */
function exchangeStub() {
  const calls: { input: TokenRequest; ctx: RequestContext }[] = [];
  return {
    calls,
    exchangeToken: async (input: TokenRequest, ctx: RequestContext): Promise<TokenResponse> => {
      calls.push({ input, ctx });
      if (input.access_key !== keys.access_key || input.secret_key !== keys.secret_key) {
        throw new ApiError("invalid_credentials");
      }
      return { access_token: await tokens.valid(PARTNER), token_type: "Bearer", expires_in: 900 };
    },
  };
}

const url = "/public/v1/auth/token";

describe("POST /public/v1/auth/token", () => {
  it("200: a bearer token that no cache may store, with the caller's address", async () => {
    const stub = exchangeStub();
    const { app } = await startAdapterApp({ auth: stub });
    const res = await app.inject({ method: "POST", url, payload: keys, remoteAddress: "203.0.113.7" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-store");
    const token = tokenResponseSchema.parse(res.json());
    expect(token).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 900 });
    const { input, ctx } = stub.calls.at(-1)!;
    expect(input).toEqual(keys);
    expect(ctx).toMatchObject({ requestId: res.headers["x-request-id"], ip: "203.0.113.7" });
    expect(ctx.principal).toBeUndefined();
  });

  it("200: needs no bearer token and ignores one that is sent", async () => {
    const { app } = await startAdapterApp({ auth: exchangeStub() });
    for (const authorization of [`Bearer ${await tokens.expired()}`, "Bearer garbage", "Basic YTpi"]) {
      const res = await app.inject({ method: "POST", url, payload: keys, headers: { authorization } });
      expect(res.statusCode, authorization).toBe(200);
    }
  });

  describe("errors", () => {
    const errors = documentedErrors(AUTH_TOKEN_ERROR_CODES);

    errors.it(
      "validation_error",
      "names the missing, ill-typed, too long or unknown field; bad JSON",
      async () => {
        const stub = exchangeStub();
        const { app } = await startAdapterApp({ auth: stub });
        const cases: [Record<string, unknown>, string][] = [
          [{ access_key: keys.access_key }, "secret_key"],
          [{ secret_key: keys.secret_key }, "access_key"],
          [{ ...keys, access_key: 42 }, "access_key"],
          [{ ...keys, secret_key: "" }, "secret_key"],
          [{ ...keys, secret_key: "s".repeat(257) }, "secret_key"],
          [{ ...keys, scope: "all" }, "scope"],
        ];
        for (const [payload, field] of cases) {
          const res = await app.inject({ method: "POST", url, payload });
          const error = expectError(res, 400, "validation_error");
          expect(error.message, JSON.stringify(payload)).toContain(field);
          expect(error.message).not.toContain(keys.secret_key);
        }
        const badJson = await app.inject({
          method: "POST",
          url,
          payload: '{"access_key": "ak_acme", ',
          headers: { "content-type": "application/json" },
        });
        expect(expectError(badJson, 400, "validation_error").message).toBe(
          "The request body is not valid JSON.",
        );
        expect(stub.calls).toHaveLength(0);
      },
    );

    errors.it("invalid_credentials", "one message for an unknown key and a wrong secret", async () => {
      const { app } = await startAdapterApp({ auth: exchangeStub() });
      const wrongSecret = expectError(
        await app.inject({ method: "POST", url, payload: { ...keys, secret_key: "sk_wrong" } }),
        401,
        "invalid_credentials",
      );
      const unknownKey = expectError(
        await app.inject({ method: "POST", url, payload: { ...keys, access_key: "ak_nobody" } }),
        401,
        "invalid_credentials",
      );
      expect(wrongSecret.message).toBe(DEFAULT_MESSAGES.invalid_credentials);
      expect(unknownKey.message).toBe(wrongSecret.message);
    });

    errors.it("not_found", "the route only exists under /public/v1, and only for POST", async () => {
      const { app } = await startAdapterApp({ auth: exchangeStub() });
      expectError(await app.inject({ method: "POST", url: "/auth/token", payload: keys }), 404, "not_found");
      expectError(await app.inject({ url }), 404, "not_found");
    });

    errors.it("payload_too_large", "a body over 64 KiB", async () => {
      const stub = exchangeStub();
      const { app } = await startAdapterApp({ auth: stub });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { ...keys, access_key: "a".repeat(70 * 1024) },
      });
      expectError(res, 413, "payload_too_large");
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("unsupported_media_type", "a form-encoded body", async () => {
      const { app } = await startAdapterApp({ auth: exchangeStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: "access_key=ak_acme&secret_key=sk_right",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expectError(res, 415, "unsupported_media_type");
    });

    errors.it("rate_limited", "per client address before the body is read, then per access key", async () => {
      const { app } = await startAdapterApp({
        auth: exchangeStub(),
        rateLimits: {
          tokenPerAddress: { max: 1, windowMs: 60_000 },
          tokenPerKey: { max: 1, windowMs: 60_000 },
        },
      });
      const first = await app.inject({ method: "POST", url, payload: keys, remoteAddress: "198.51.100.1" });
      expect(first.statusCode).toBe(200);
      const sameAddress = await app.inject({
        method: "POST",
        url,
        payload: "not even JSON",
        headers: { "content-type": "application/json" },
        remoteAddress: "198.51.100.1",
      });
      expectError(sameAddress, 429, "rate_limited");
      expect(Number(sameAddress.headers["retry-after"])).toBeGreaterThanOrEqual(1);

      const sameKey = await app.inject({ method: "POST", url, payload: keys, remoteAddress: "198.51.100.2" });
      expectError(sameKey, 429, "rate_limited");
      expect(Number(sameKey.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      const otherKey = await app.inject({
        method: "POST",
        url,
        payload: { ...keys, access_key: "ak_other" },
        remoteAddress: "198.51.100.3",
      });
      expectError(otherKey, 401, "invalid_credentials");
    });

    errors.it("internal_error", "a failing key store reveals nothing", async () => {
      const { app, logs } = await startAdapterApp({
        auth: {
          exchangeToken: async () => {
            throw new Error("SQLITE_BUSY: database is locked (partners.db) for sk_right");
          },
        },
      });
      const res = await app.inject({ method: "POST", url, payload: keys });
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/SQLITE|partners\.db|sk_right/);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );
    });

    errors.it("unavailable", "the service's 503 with Retry-After", async () => {
      const { app } = await startAdapterApp({
        auth: {
          exchangeToken: async () => {
            throw new ApiError("unavailable");
          },
        },
      });
      const res = await app.inject({ method: "POST", url, payload: keys });
      expectError(res, 503, "unavailable");
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.itRefusesWhileReceiving("POST", "/public/v1/auth/token");
    errors.itCoversEveryDocumentedCode();
  });
});
