import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES, type ErrorCode } from "../errors.js";
import type { RateLimitsInput } from "../rate-limits.js";
import type { RequestContext } from "../services.js";
import {
  type AdapterAppOptions,
  BEARER_CHALLENGE,
  bearer,
  COMPANY,
  documentedErrors,
  expectError,
  OTHER_COMPANY,
  OTHER_PARTNER,
  PARTNER,
  startAdapterApp,
  tokens,
} from "./adapter-app.js";
import { memoryIdempotencyStore } from "./memory-idempotency-store.js";

/**
 * The errors every route shares (bearer token, company access, body limits, failures of the service, ...) tested
 * once here, from a declaration of the route: each route file declares a `RouteUnderTest` and keeps only the
 * tests of what is its own.
 */

/** The one service operation behind a route. */
export type Operation<I, O> = (input: I, ctx: RequestContext) => Promise<O>;

export interface RouteUnderTest<I, O> {
  method: "GET" | "POST";
  /** Its path under /public/v1; a /v2 route also answers at the host root. */
  url: string;
  /** Whether it takes a bearer token: every route but the key exchange. */
  bearer: boolean;
  /** A valid request, for `COMPANY` where it names one: the query of a GET, the JSON body of a POST. */
  request: Record<string, unknown>;
  /** What the operation is handed for `request`, defaults applied. */
  input: I;
  /** Installs `operation` as the route's operation in the fixture's services. */
  serve(operation: Operation<I, O>): Pick<AdapterAppOptions, "auth" | "pricing">;
  /** An answer of the operation, and the route's response schema it must pass. */
  answer: O;
  responseSchema: { parse(value: unknown): O };
  /** An answer the response schema refuses: the route must send a 500, not the answer. */
  malformed: unknown;
  /** Its error codes as documented in its OpenAPI responses. */
  documented: readonly ErrorCode[];
  /** Requests refused with validation_error, each with the field the message must name. */
  invalid: readonly (readonly [Record<string, unknown>, string])[];
  /** Requests next to the route (a path below it) that must be 404 not_found; another method is a 405. */
  notFound: readonly InjectOptions[];
  /** The partner limit its calls count against; a route limited otherwise tests rate_limited itself. */
  rateLimit?: keyof Pick<RateLimitsInput, "dataPerPartner" | "computePerPartner" | "trainPerPartner">;
  /** A value of the request no error message may repeat (the secret key). */
  secret?: string;
}

/** The operation answering with `answer` (by default the route's own), recording each call. */
export function recordCalls<I, O>(
  route: RouteUnderTest<I, O>,
  answer: (input: I) => Promise<O> = async () => route.answer,
) {
  const calls: { input: I; ctx: RequestContext }[] = [];
  const options = route.serve(async (input, ctx) => {
    calls.push({ input, ctx });
    return answer(input);
  });
  return { calls, options };
}

/** Sends `request` (by default the route's valid one) to the route with `headers` (by default a valid token's). */
export async function send<I, O>(
  app: FastifyInstance,
  route: RouteUnderTest<I, O>,
  options: {
    request?: Record<string, unknown> | string;
    headers?: Record<string, string>;
    url?: string;
  } = {},
): Promise<LightMyRequestResponse> {
  const { request = route.request, url = route.url } = options;
  const headers = options.headers ?? (route.bearer ? await bearer() : {});
  if (route.method === "GET") {
    return app.inject({ method: "GET", url, query: request as Record<string, string>, headers });
  }
  const payload = typeof request === "string" ? request : JSON.stringify(request);
  return app.inject({
    method: "POST",
    url,
    payload,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The 200 of a /v2 route at both of its paths, with the caller's request id and principal handed to the service. */
export function itAnswers<I, O>(route: RouteUnderTest<I, O>, what: string): void {
  it(`200: ${what}, under /public/v1 and at the host root, with the caller's context`, async () => {
    const { calls, options } = recordCalls(route);
    const { app } = await startAdapterApp(options);
    for (const url of [route.url, route.url.replace(/^\/public\/v1/, "")]) {
      const res = await send(app, route, { url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(route.responseSchema.parse(res.json())).toEqual(route.answer);
      const { input, ctx } = calls.at(-1)!;
      expect(input).toEqual(route.input);
      expect(ctx.requestId).toBe(res.headers["x-request-id"]);
      expect(ctx.principal).toEqual({ partnerId: PARTNER, tokenId: expect.any(String) });
    }
  });
}

const LEAK = "SQLITE_CORRUPT: /var/lib/pricing/secret.db";

/**
 * `documentedErrors` of the route with a test generated for each documented code that every route shares; the
 * route file adds the tests of its own codes (or more of a shared one) and ends with `itCoversEveryDocumentedCode`.
 */
export function routeErrors<I, O>(route: RouteUnderTest<I, O>) {
  const errors = documentedErrors(route.documented);
  const documents = (code: ErrorCode) => route.documented.includes(code);
  const failing = (error: Error) => route.serve(() => Promise.reject(error));

  if (documents("validation_error")) {
    errors.it("validation_error", "names the field at fault; a body that is not JSON, or empty", async () => {
      const { calls, options } = recordCalls(route);
      const { app } = await startAdapterApp(options);
      for (const [request, field] of route.invalid) {
        const error = expectError(await send(app, route, { request }), 400, "validation_error");
        expect(error.message, JSON.stringify(request)).toContain(field);
        if (route.secret) expect(error.message).not.toContain(route.secret);
      }
      if (route.method === "POST") {
        const badJson = await send(app, route, { request: '{"company_id": ' });
        expect(expectError(badJson, 400, "validation_error").message).toBe(
          "The request body is not valid JSON.",
        );
        expectError(await send(app, route, { request: "" }), 400, "validation_error");
      }
      expect(calls).toHaveLength(0);
    });
  }

  if (documents("method_not_allowed")) {
    errors.it("method_not_allowed", "any other method, at both paths, with Allow", async () => {
      const { calls, options } = recordCalls(route);
      const { app } = await startAdapterApp(options);
      const headers = route.bearer ? await bearer() : {};
      const allow = route.method === "GET" ? "GET, HEAD" : "POST";
      const others = (["GET", "POST", "PUT", "PATCH", "DELETE", "TRACE"] as const).filter(
        (m) => m !== route.method,
      );
      // Only the /v2 routes are also served at the host root.
      const urls = route.url.includes("/v2/")
        ? [route.url, route.url.replace(/^\/public\/v1/, "")]
        : [route.url];
      for (const url of urls) {
        for (const method of others) {
          const res = await app.inject({ method, url, headers });
          expectError(res, 405, "method_not_allowed");
          expect(res.headers.allow, `${method} ${url}`).toBe(allow);
        }
      }
      expect(calls).toHaveLength(0);
    });
  }

  if (documents("not_found")) {
    errors.it("not_found", "a path below the route", async () => {
      const { app } = await startAdapterApp(recordCalls(route).options);
      const headers = route.bearer ? await bearer() : {};
      for (const request of route.notFound) {
        expectError(await app.inject({ ...request, headers }), 404, "not_found");
      }
    });
  }

  if (documents("company_not_found")) {
    errors.it("company_not_found", "the same body for an unknown and another partner's company", async () => {
      const { calls, options } = recordCalls(route);
      const { app } = await startAdapterApp(options);
      const refusal = async (company: string) =>
        expectError(
          await send(app, route, { request: { ...route.request, company_id: company } }),
          404,
          "company_not_found",
        );
      const unknown = await refusal("no-such-co");
      const foreign = await refusal(OTHER_COMPANY);
      expect(foreign.message).toBe(unknown.message);
      expect(calls).toHaveLength(0);
    });
  }

  for (const [code, token] of [
    ["invalid_token", tokens.forged],
    ["token_expired", tokens.expired],
  ] as const) {
    if (!documents(code)) continue;
    const what = code === "invalid_token" ? "a token signed with another key" : "a token past its exp";
    errors.it(code, `${what}, with the challenge`, async () => {
      const { app } = await startAdapterApp(recordCalls(route).options);
      const res = await send(app, route, { headers: { authorization: `Bearer ${await token()}` } });
      expectError(res, 401, code);
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });
  }

  if (documents("payload_too_large")) {
    errors.it("payload_too_large", "a body over the limit, which the message states", async () => {
      const { calls, options } = recordCalls(route);
      const { app } = await startAdapterApp(options);
      const padded = { ...route.request, padding: "x".repeat(64 * 1024) };
      expect(expectError(await send(app, route, { request: padded }), 413, "payload_too_large").message).toBe(
        "The request body is larger than 64 KiB.",
      );
      const { app: small } = await startAdapterApp({ ...options, bodyLimit: 50 });
      const over = { ...route.request, padding: "x".repeat(50) };
      expect(expectError(await send(small, route, { request: over }), 413, "payload_too_large").message).toBe(
        "The request body is larger than 50 bytes.",
      );
      expect(calls).toHaveLength(0);
    });
  }

  if (documents("unsupported_media_type")) {
    errors.it("unsupported_media_type", "a body that is not application/json", async () => {
      const { app } = await startAdapterApp(recordCalls(route).options);
      const headers = route.bearer ? await bearer() : {};
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
        const res = await send(app, route, {
          request: `company_id=${COMPANY}`,
          headers: { ...headers, "content-type": type },
        });
        expectError(res, 415, "unsupported_media_type");
      }
    });
  }

  const { rateLimit } = route;
  if (documents("rate_limited") && rateLimit) {
    errors.it(
      "rate_limited",
      "over the partner's limit, with Retry-After; other partners keep theirs",
      async () => {
        const { app } = await startAdapterApp({
          ...recordCalls(route).options,
          rateLimits: { [rateLimit]: { max: 1, windowMs: 60_000 } },
        });
        expect((await send(app, route)).statusCode).toBe(200);
        const limited = await send(app, route);
        expectError(limited, 429, "rate_limited");
        expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
        const other = await send(app, route, {
          request: { ...route.request, company_id: OTHER_COMPANY },
          headers: await bearer(OTHER_PARTNER),
        });
        expect(other.statusCode).toBe(200);
      },
    );
  }

  if (documents("internal_error")) {
    errors.it("internal_error", "an unexpected failure or a malformed answer reveals nothing", async () => {
      const { app, logs } = await startAdapterApp(failing(new Error(`${LEAK} ${route.secret ?? ""}`)));
      const res = await send(app, route);
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/SQLITE|secret\.db/);
      if (route.secret) expect(res.body).not.toContain(route.secret);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );

      const { app: broken } = await startAdapterApp(route.serve(async () => route.malformed as O));
      const malformed = await send(broken, route);
      expect(expectError(malformed, 500, "internal_error").message).toBe(DEFAULT_MESSAGES.internal_error);
    });
  }

  if (documents("unavailable")) {
    errors.it(
      "unavailable",
      "the service's 503 with its message and Retry-After, or default ones",
      async () => {
        const busyError = new ApiError("unavailable", "Busy; retry shortly.", {
          headers: { "Retry-After": "2" },
        });
        const { app: busyApp } = await startAdapterApp(failing(busyError));
        const busy = await send(busyApp, route);
        expect(expectError(busy, 503, "unavailable").message).toBe("Busy; retry shortly.");
        expect(busy.headers["retry-after"]).toBe("2");

        const { app: downApp } = await startAdapterApp(failing(new ApiError("unavailable")));
        const down = await send(downApp, route);
        expect(expectError(down, 503, "unavailable").message).toBe(DEFAULT_MESSAGES.unavailable);
        expect(Number(down.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      },
    );
  }

  if (documents("idempotency_key_reused")) {
    errors.it(
      "idempotency_key_reused",
      "a key replays its first answer to the same request, and refuses another request",
      async () => {
        const { calls, options } = recordCalls(route);
        const store = memoryIdempotencyStore();
        const { app } = await startAdapterApp({ ...options, idempotency: { store } });
        const headers = { ...(await bearer()), "idempotency-key": "key-1" };
        const first = await send(app, route, { headers });
        expect(first.statusCode).toBe(200);
        expect(first.headers["idempotent-replayed"]).toBeUndefined();
        const again = await send(app, route, { headers });
        expect(again.statusCode).toBe(200);
        expect(again.headers["idempotent-replayed"]).toBe("true");
        expect(again.headers["content-type"]).toBe(first.headers["content-type"]);
        expect(again.body).toBe(first.body);
        expect(calls).toHaveLength(1);
        // The same body at the host-root path is another request (method, path and body make it).
        const other = await send(app, route, { headers, url: route.url.replace(/^\/public\/v1/, "") });
        expectError(other, 422, "idempotency_key_reused");
        // Keys are per partner: another partner's same key is its own.
        const foreign = await send(app, route, {
          request: { ...route.request, company_id: OTHER_COMPANY },
          headers: { ...(await bearer(OTHER_PARTNER)), "idempotency-key": "key-1" },
        });
        expect(foreign.statusCode).toBe(200);
        expect(calls).toHaveLength(2);
        expectError(
          await send(app, route, { headers: { ...headers, "idempotency-key": "é".repeat(3) } }),
          400,
          "validation_error",
        );
      },
    );
  }

  if (documents("idempotency_key_in_progress")) {
    errors.it(
      "idempotency_key_in_progress",
      "the same key while the first request runs, with Retry-After; a failed first frees the key",
      async () => {
        let finish: (() => void) | undefined;
        let failNext = true;
        const { calls, options } = recordCalls(route, async () => {
          await new Promise<void>((resolve) => {
            finish = resolve;
          });
          if (failNext) throw new ApiError("unavailable");
          return route.answer;
        });
        const store = memoryIdempotencyStore();
        const { app } = await startAdapterApp({ ...options, idempotency: { store } });
        const headers = { ...(await bearer()), "idempotency-key": "key-2" };
        const first = send(app, route, { headers });
        await expect.poll(() => calls.length).toBe(1);
        const busy = await send(app, route, { headers });
        expectError(busy, 409, "idempotency_key_in_progress");
        expect(Number(busy.headers["retry-after"])).toBeGreaterThanOrEqual(1);
        finish?.();
        expect((await first).statusCode).toBe(503);
        // A 5xx is not the answer to keep: the retry runs.
        failNext = false;
        const retry = send(app, route, { headers });
        await expect.poll(() => calls.length).toBe(2);
        finish?.();
        expect((await retry).statusCode).toBe(200);
      },
    );
  }

  if (documents("headers_too_large") || documents("request_timeout")) {
    errors.itRefusesWhileReceiving(route.method, route.url);
  }
  return errors;
}
