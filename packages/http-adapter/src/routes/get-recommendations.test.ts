import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { recommendationsResponseSchema } from "../schemas/recommendations.js";
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
import {
  GET_RECOMMENDATIONS_ERROR_CODES,
  type GetRecommendationsQuery,
  type RecommendationsResponse,
} from "./get-recommendations.js";

const read: RecommendationsResponse = {
  company_id: COMPANY,
  run: {
    run_id: "run_7",
    company_id: COMPANY,
    kind: "nightly",
    as_of: "2026-11-21",
    created_at: "2026-11-21T02:00:00.000Z",
    source: "approved",
    model_id: "mdl_3",
    start_date: "2026-11-22",
    end_date: "2026-12-05",
    products: 1,
    recommendation_count: 14,
  },
  recommendations: [
    {
      product_id: "sku-1",
      date: "2026-11-22",
      price: 19.49,
      currency: "EUR",
      base_price: 19.99,
      rule_price: 18.99,
      expected_units: 12.4,
      expected_revenue: 241.68,
      source: "approved",
      model_id: "mdl_3",
    },
  ],
};

/** The operation behind the route, recording what it was asked. */
function readStub(
  answer: (input: GetRecommendationsQuery) => Promise<RecommendationsResponse> = async () => read,
) {
  const calls: { input: GetRecommendationsQuery; ctx: RequestContext }[] = [];
  return {
    calls,
    getRecommendations: async (input: GetRecommendationsQuery, ctx: RequestContext) => {
      calls.push({ input, ctx });
      return answer(input);
    },
  };
}

const url = "/v2/recommendations";

describe("GET /v2/recommendations", () => {
  it("200: the run's recommendations, under /public/v1 and at the host root, with the caller's context", async () => {
    const stub = readStub();
    const { app } = await startAdapterApp({ pricing: stub });
    for (const path of ["/public/v1/v2/recommendations", url]) {
      const res = await app.inject({ url: path, query: { company_id: COMPANY }, headers: await bearer() });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(recommendationsResponseSchema.parse(res.json())).toEqual(read);
      const { ctx } = stub.calls.at(-1)!;
      expect(ctx.requestId).toBe(res.headers["x-request-id"]);
      expect(ctx.principal).toEqual({ partnerId: PARTNER, tokenId: expect.any(String) });
    }
  });

  it("hands the service the validated query: runs_ago 0 by default, a number when given, the filters as sent", async () => {
    const stub = readStub();
    const { app } = await startAdapterApp({ pricing: stub });
    const headers = await bearer();
    await app.inject({ url, query: { company_id: COMPANY }, headers });
    const filtered = {
      company_id: COMPANY,
      start_date: "2026-11-23",
      end_date: "2026-11-23",
      runs_ago: "2",
      product_id: "sku-1",
    };
    await app.inject({ url, query: filtered, headers });
    expect(stub.calls.map((c) => c.input)).toEqual([
      { company_id: COMPANY, runs_ago: 0 },
      { ...filtered, runs_ago: 2 },
    ]);
  });

  it("200: sends the bytes of the service's serialized fast path as they are, without the slow path", async () => {
    const slow = readStub();
    const bytes = Buffer.from(JSON.stringify(read), "utf8");
    const fastCalls: GetRecommendationsQuery[] = [];
    const { app } = await startAdapterApp({
      pricing: {
        getRecommendations: slow.getRecommendations,
        getRecommendationsJson: async (input) => {
          fastCalls.push(input);
          return bytes;
        },
      },
    });
    const res = await app.inject({ url, query: { company_id: COMPANY }, headers: await bearer() });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(recommendationsResponseSchema.parse(res.json())).toEqual(read);
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(fastCalls).toEqual([{ company_id: COMPANY, runs_ago: 0 }]);
    expect(slow.calls).toHaveLength(0);
  });

  describe("errors", () => {
    const errors = documentedErrors(GET_RECOMMENDATIONS_ERROR_CODES);

    errors.it(
      "validation_error",
      "names the missing, ill-formed, inconsistent or unknown parameter",
      async () => {
        const stub = readStub();
        const { app } = await startAdapterApp({ pricing: stub });
        const headers = await bearer();
        const cases: [Record<string, string>, string][] = [
          [{}, "company_id"],
          [{ company_id: COMPANY, start_date: "22/11/2026" }, "start_date"],
          [{ company_id: COMPANY, end_date: "2026-02-30" }, "end_date"],
          [{ company_id: COMPANY, start_date: "2026-11-25", end_date: "2026-11-24" }, "start_date"],
          [{ company_id: COMPANY, runs_ago: "-1" }, "runs_ago"],
          [{ company_id: COMPANY, runs_ago: "1.5" }, "runs_ago"],
          [{ company_id: COMPANY, product_id: "" }, "product_id"],
          [{ company_id: COMPANY, currency: "EUR" }, "currency"],
        ];
        for (const [query, field] of cases) {
          const res = await app.inject({ url, query, headers });
          expect(expectError(res, 400, "validation_error").message, JSON.stringify(query)).toContain(field);
        }
        expect(stub.calls).toHaveLength(0);
      },
    );

    errors.it("not_found", "a path below the route or another method", async () => {
      const { app } = await startAdapterApp({ pricing: readStub() });
      const headers = await bearer();
      expectError(await app.inject({ url: `${url}/latest`, headers }), 404, "not_found");
      expectError(await app.inject({ method: "PUT", url, headers }), 404, "not_found");
    });

    errors.it("company_not_found", "the same body for an unknown and another partner's company", async () => {
      const stub = readStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const unknown = expectError(
        await app.inject({ url, query: { company_id: "no-such-co" }, headers }),
        404,
        "company_not_found",
      );
      const foreign = expectError(
        await app.inject({ url, query: { company_id: OTHER_COMPANY }, headers }),
        404,
        "company_not_found",
      );
      expect(foreign.message).toBe(unknown.message);
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("no_run_at_offset", "runs_ago past the oldest run", async () => {
      const { app } = await startAdapterApp({
        pricing: readStub(async (input) => {
          if (input.runs_ago > 0) throw new ApiError("no_run_at_offset");
          return read;
        }),
      });
      const res = await app.inject({
        url,
        query: { company_id: COMPANY, runs_ago: "3" },
        headers: await bearer(),
      });
      expect(expectError(res, 404, "no_run_at_offset").message).toBe(DEFAULT_MESSAGES.no_run_at_offset);
    });

    errors.it("invalid_token", "a token signed with another key, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: readStub() });
      const res = await app.inject({
        url,
        query: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.forged()}` },
      });
      expectError(res, 401, "invalid_token");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("token_expired", "a token past its exp, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: readStub() });
      const res = await app.inject({
        url,
        query: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.expired()}` },
      });
      expectError(res, 401, "token_expired");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("rate_limited", "over the partner's data limit, with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: readStub(),
        rateLimits: { dataPerPartner: { max: 1, windowMs: 60_000 } },
      });
      const request = { url, query: { company_id: COMPANY }, headers: await bearer() };
      expect((await app.inject(request)).statusCode).toBe(200);
      const limited = await app.inject(request);
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.it("internal_error", "an unexpected failure or a malformed answer reveals nothing", async () => {
      const { app, logs } = await startAdapterApp({
        pricing: readStub(async () => {
          throw new TypeError(
            "Cannot read properties of undefined (reading 'price') at /srv/pricing/plan.js",
          );
        }),
      });
      const res = await app.inject({ url, query: { company_id: COMPANY }, headers: await bearer() });
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/properties|plan\.js/);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );

      const { app: broken } = await startAdapterApp({
        pricing: readStub(async () => ({
          ...read,
          recommendations: [{ ...read.recommendations[0]!, date: "tomorrow" }],
        })),
      });
      const malformed = await broken.inject({ url, query: { company_id: COMPANY }, headers: await bearer() });
      expect(expectError(malformed, 500, "internal_error").message).toBe(DEFAULT_MESSAGES.internal_error);
    });

    errors.it("unavailable", "the service's 503 with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: readStub(async () => {
          throw new ApiError("unavailable");
        }),
      });
      const res = await app.inject({ url, query: { company_id: COMPANY }, headers: await bearer() });
      expectError(res, 503, "unavailable");
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.itRefusesWhileReceiving("GET", "/public/v1/v2/recommendations");
    errors.itCoversEveryDocumentedCode();
  });
});
