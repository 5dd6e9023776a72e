import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { computeResponseSchema } from "../schemas/recommendations.js";
import type { RequestContext } from "../services.js";
import {
  BEARER_CHALLENGE,
  bearer,
  COMPANY,
  documentedErrors,
  expectError,
  OTHER_COMPANY,
  PARTNER,
  startAdapterApp,
  tokens,
} from "../test-support/adapter-app.js";
import { COMPUTE_ERROR_CODES, type ComputeRequest, type ComputeResponse } from "./compute-recommendations.js";

const recommendation = {
  product_id: "sku-1",
  date: "2026-11-22",
  price: 21.5,
  currency: "EUR",
  base_price: 19.99,
  rule_price: 18.99,
  expected_units: 10,
  expected_revenue: 215,
  source: "latest",
  model_id: "mdl_4",
} as const;

const dryRun: ComputeResponse = {
  company_id: COMPANY,
  persisted: false,
  run: null,
  source: "latest",
  model_id: "mdl_4",
  recommendations: [recommendation],
};

const persisted: ComputeResponse = {
  ...dryRun,
  persisted: true,
  run: {
    run_id: "run_9",
    company_id: COMPANY,
    kind: "on_demand",
    as_of: "2026-11-21",
    created_at: "2026-11-21T12:00:00.000Z",
    source: "latest",
    model_id: "mdl_4",
    start_date: "2026-11-22",
    end_date: "2026-11-22",
    products: 1,
    recommendation_count: 1,
  },
};

/** The one operation behind the route, recording what it was asked. */
function computeStub(
  answer: (input: ComputeRequest) => Promise<ComputeResponse> = async (input) =>
    input.dry_run ? dryRun : persisted,
) {
  const calls: { input: ComputeRequest; ctx: RequestContext }[] = [];
  return {
    calls,
    compute: async (input: ComputeRequest, ctx: RequestContext) => {
      calls.push({ input, ctx });
      return answer(input);
    },
  };
}

const url = "/v2/recommendations/compute";

describe("POST /v2/recommendations/compute", () => {
  it("200: a persisted run, under /public/v1 and at the host root, with the caller's context", async () => {
    const stub = computeStub();
    const { app } = await startAdapterApp({ pricing: stub });
    for (const path of ["/public/v1/v2/recommendations/compute", url]) {
      const res = await app.inject({
        method: "POST",
        url: path,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(computeResponseSchema.parse(res.json())).toEqual(persisted);
      const { input, ctx } = stub.calls.at(-1)!;
      expect(input).toEqual({ company_id: COMPANY, dry_run: false });
      expect(ctx.requestId).toBe(res.headers["x-request-id"]);
      expect(ctx.principal).toEqual({ partnerId: PARTNER, tokenId: expect.any(String) });
    }
  });

  it("200: a dry run over a date range answers run null and passes the range on", async () => {
    const stub = computeStub();
    const { app } = await startAdapterApp({ pricing: stub });
    const body = { company_id: COMPANY, dry_run: true, start_date: "2026-11-22", end_date: "2026-11-28" };
    const res = await app.inject({ method: "POST", url, payload: body, headers: await bearer() });
    expect(res.statusCode).toBe(200);
    expect(computeResponseSchema.parse(res.json())).toEqual(dryRun);
    expect(stub.calls.map((c) => c.input)).toEqual([body]);
  });

  describe("errors", () => {
    const errors = documentedErrors(COMPUTE_ERROR_CODES);

    errors.it(
      "validation_error",
      "names the missing, ill-typed, inconsistent or unknown field; bad JSON",
      async () => {
        const stub = computeStub();
        const { app } = await startAdapterApp({ pricing: stub });
        const headers = await bearer();
        const cases: [Record<string, unknown>, string][] = [
          [{}, "company_id"],
          [{ company_id: COMPANY, dry_run: "yes" }, "dry_run"],
          [{ company_id: COMPANY, start_date: "2026-13-01" }, "start_date"],
          [{ company_id: COMPANY, start_date: "2026-11-28", end_date: "2026-11-22" }, "start_date"],
          [{ company_id: COMPANY, horizon_days: 7 }, "horizon_days"],
          // 367 days, wherever they lie: the one bound that needs no company's today.
          [{ company_id: COMPANY, start_date: "2026-11-22", end_date: "2027-11-23" }, "end_date"],
          [{ company_id: COMPANY, start_date: "3088-01-01", end_date: "3089-01-02" }, "end_date"],
        ];
        for (const [payload, field] of cases) {
          const res = await app.inject({ method: "POST", url, payload, headers });
          expect(expectError(res, 400, "validation_error").message, JSON.stringify(payload)).toContain(field);
        }
        const badJson = await app.inject({
          method: "POST",
          url,
          payload: '{"company_id": ',
          headers: { ...headers, "content-type": "application/json" },
        });
        expect(expectError(badJson, 400, "validation_error").message).toBe(
          "The request body is not valid JSON.",
        );
        expect(stub.calls).toHaveLength(0);
      },
    );

    errors.it("not_found", "a path below the route or another method", async () => {
      const { app } = await startAdapterApp({ pricing: computeStub() });
      const headers = await bearer();
      expectError(await app.inject({ method: "POST", url: `${url}/now`, headers }), 404, "not_found");
      expectError(await app.inject({ url, query: { company_id: COMPANY }, headers }), 404, "not_found");
    });

    errors.it("company_not_found", "the same body for an unknown and another partner's company", async () => {
      const stub = computeStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const unknown = expectError(
        await app.inject({ method: "POST", url, payload: { company_id: "no-such-co" }, headers }),
        404,
        "company_not_found",
      );
      const foreign = expectError(
        await app.inject({ method: "POST", url, payload: { company_id: OTHER_COMPANY }, headers }),
        404,
        "company_not_found",
      );
      expect(foreign.message).toBe(unknown.message);
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("invalid_token", "a token signed with another key, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: computeStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.forged()}` },
      });
      expectError(res, 401, "invalid_token");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("token_expired", "a token past its exp, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: computeStub() });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.expired()}` },
      });
      expectError(res, 401, "token_expired");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("payload_too_large", "a body over the limit, which the message states", async () => {
      const stub = computeStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const payload = JSON.stringify({ company_id: COMPANY, padding: "x".repeat(64 * 1024) });
      const res = await app.inject({
        method: "POST",
        url,
        payload,
        headers: { ...headers, "content-type": "application/json" },
      });
      expect(expectError(res, 413, "payload_too_large").message).toBe(
        "The request body is larger than 64 KiB.",
      );

      const { app: small } = await startAdapterApp({ pricing: stub, bodyLimit: 50 });
      const over = await small.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY, dry_run: true, start_date: "2026-11-22", end_date: "2026-11-28" },
        headers,
      });
      expect(expectError(over, 413, "payload_too_large").message).toBe(
        "The request body is larger than 50 bytes.",
      );
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("unsupported_media_type", "a body that is not application/json", async () => {
      const { app } = await startAdapterApp({ pricing: computeStub() });
      const headers = await bearer();
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
        const res = await app.inject({
          method: "POST",
          url,
          payload: `company_id=${COMPANY}`,
          headers: { ...headers, "content-type": type },
        });
        expectError(res, 415, "unsupported_media_type");
      }
    });

    errors.it("rate_limited", "over the partner's compute limit, with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: computeStub(),
        rateLimits: { computePerPartner: { max: 1, windowMs: 60_000 } },
      });
      const request = {
        method: "POST" as const,
        url,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      };
      expect((await app.inject(request)).statusCode).toBe(200);
      const limited = await app.inject(request);
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.it("internal_error", "an unexpected failure or a malformed answer reveals nothing", async () => {
      const { app, logs } = await startAdapterApp({
        pricing: computeStub(async () => {
          throw new RangeError("tensor shape [3,7] at /srv/models/acme-eu/weights.bin");
        }),
      });
      const request = {
        method: "POST" as const,
        url,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      };
      const res = await app.inject(request);
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/tensor|weights\.bin/);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );

      const { app: broken } = await startAdapterApp({
        pricing: computeStub(
          async () => ({ ...persisted, persisted: undefined }) as unknown as ComputeResponse,
        ),
      });
      const malformed = await broken.inject({ ...request, headers: await bearer() });
      expect(expectError(malformed, 500, "internal_error").message).toBe(DEFAULT_MESSAGES.internal_error);
    });

    errors.it("unavailable", "the service's 503 with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: computeStub(async () => {
          throw new ApiError("unavailable");
        }),
      });
      const res = await app.inject({
        method: "POST",
        url,
        payload: { company_id: COMPANY },
        headers: await bearer(),
      });
      expectError(res, 503, "unavailable");
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.itRefusesWhileReceiving("POST", "/public/v1/v2/recommendations/compute");
    errors.itCoversEveryDocumentedCode();
  });
});
