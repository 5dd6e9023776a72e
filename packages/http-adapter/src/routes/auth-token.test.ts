import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { tokenResponseSchema } from "../schemas/auth.js";
import { expectError, startAdapterApp, tokens } from "../test-support/adapter-app.js";
import { type RouteUnderTest, recordCalls, routeErrors } from "../test-support/route-errors.js";
import { AUTH_TOKEN_ERROR_CODES, type TokenRequest, type TokenResponse } from "./auth-token.js";

const keys = { access_key: "ak_acme", secret_key: "sk_right" };
const issued: TokenResponse = { access_token: "eyJ.issued.token", token_type: "Bearer", expires_in: 900 };
const url = "/public/v1/auth/token";

const route: RouteUnderTest<TokenRequest, TokenResponse> = {
  method: "POST",
  url,
  bearer: false,
  request: keys,
  input: keys,
  serve: (exchangeToken) => ({ auth: { exchangeToken } }),
  answer: issued,
  responseSchema: tokenResponseSchema,
  malformed: { ...issued, token_type: "MAC" },
  documented: AUTH_TOKEN_ERROR_CODES,
  invalid: [
    [{ access_key: keys.access_key }, "secret_key"],
    [{ secret_key: keys.secret_key }, "access_key"],
    [{ ...keys, access_key: 42 }, "access_key"],
    [{ ...keys, secret_key: "" }, "secret_key"],
    [{ ...keys, secret_key: "s".repeat(257) }, "secret_key"],
    [{ ...keys, scope: "all" }, "scope"],
  ],
  // The route only exists under /public/v1, and only for POST.
  notFound: [{ method: "POST", url: "/auth/token", payload: keys }],
  secret: keys.secret_key,
};

/** The key exchange: one valid pair, the same refusal for anything else. */
const exchange = async (input: TokenRequest): Promise<TokenResponse> => {
  if (input.access_key !== keys.access_key || input.secret_key !== keys.secret_key) {
    throw new ApiError("invalid_credentials");
  }
  return issued;
};

describe("POST /public/v1/auth/token", () => {
  it("200: a bearer token that no cache may store, with the caller's address", async () => {
    const { calls, options } = recordCalls(route, exchange);
    const { app } = await startAdapterApp(options);
    const res = await app.inject({ method: "POST", url, payload: keys, remoteAddress: "203.0.113.7" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(tokenResponseSchema.parse(res.json())).toEqual(issued);
    const { input, ctx } = calls.at(-1)!;
    expect(input).toEqual(keys);
    expect(ctx).toMatchObject({ requestId: res.headers["x-request-id"], ip: "203.0.113.7" });
    expect(ctx.principal).toBeUndefined();
  });

  it("200: needs no bearer token and ignores one that is sent", async () => {
    const { app } = await startAdapterApp(recordCalls(route, exchange).options);
    for (const authorization of [`Bearer ${await tokens.expired()}`, "Bearer garbage", "Basic YTpi"]) {
      const res = await app.inject({ method: "POST", url, payload: keys, headers: { authorization } });
      expect(res.statusCode, authorization).toBe(200);
    }
  });

  describe("errors", () => {
    const errors = routeErrors(route);

    errors.it("invalid_credentials", "one message for an unknown key and a wrong secret", async () => {
      const { app } = await startAdapterApp(recordCalls(route, exchange).options);
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

    errors.it("rate_limited", "per client address before the body is read, then per access key", async () => {
      const { app } = await startAdapterApp({
        ...recordCalls(route, exchange).options,
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

    errors.itCoversEveryDocumentedCode();
  });
});
