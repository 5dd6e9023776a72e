import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { modelReportSchema } from "../schemas/model.js";
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
import { GET_MODEL_ERROR_CODES, type GetModelQuery, type ModelReport } from "./get-model.js";

const report: ModelReport = {
  company_id: COMPANY,
  source: "approved",
  model_id: "mdl_2",
  latest: {
    model_id: "mdl_2",
    version: 2,
    trained_at: "2026-11-20T10:00:00.000Z",
    metrics: { upliftPct: 2.5 },
  },
  approved: {
    model_id: "mdl_2",
    version: 2,
    trained_at: "2026-11-20T10:00:00.000Z",
    metrics: { upliftPct: 2.5 },
    approved_at: "2026-11-20T11:00:00.000Z",
  },
  fallback_reason: null,
};

/** The one operation behind the route, recording what it was asked. */
function getModelStub(answer: (input: GetModelQuery) => Promise<ModelReport> = async () => report) {
  const calls: { input: GetModelQuery; ctx: RequestContext }[] = [];
  return {
    calls,
    getModel: async (input: GetModelQuery, ctx: RequestContext) => {
      calls.push({ input, ctx });
      return answer(input);
    },
  };
}

describe("GET /v2/model", () => {
  it("200: the model report, under /public/v1 and at the host root, with the caller's context", async () => {
    const stub = getModelStub();
    const { app } = await startAdapterApp({ pricing: { getModel: stub.getModel } });
    for (const url of ["/public/v1/v2/model", "/v2/model"]) {
      const res = await app.inject({ url, query: { company_id: COMPANY }, headers: await bearer() });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(modelReportSchema.parse(res.json())).toEqual(report);
      const { input, ctx } = stub.calls.at(-1)!;
      expect(input).toEqual({ company_id: COMPANY });
      expect(ctx.requestId).toBe(res.headers["x-request-id"]);
      expect(ctx.principal).toEqual({ partnerId: PARTNER, tokenId: expect.any(String) });
    }
  });

  it("200: a company on the rule fallback reports null slots and its reason", async () => {
    const rule: ModelReport = {
      company_id: COMPANY,
      source: "rule",
      model_id: null,
      latest: null,
      approved: null,
      fallback_reason: "no_artifact",
    };
    const { app } = await startAdapterApp({ pricing: getModelStub(async () => rule) });
    const res = await app.inject({
      url: "/v2/model",
      query: { company_id: COMPANY },
      headers: await bearer(),
    });
    expect(res.statusCode).toBe(200);
    expect(modelReportSchema.parse(res.json())).toEqual(rule);
  });

  describe("errors", () => {
    const errors = documentedErrors(GET_MODEL_ERROR_CODES);

    errors.it("validation_error", "names the missing, ill-formed or unknown parameter", async () => {
      const stub = getModelStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const missing = await app.inject({ url: "/v2/model", headers });
      expect(expectError(missing, 400, "validation_error").message).toContain("company_id");
      const illFormed = await app.inject({ url: "/v2/model", query: { company_id: "acme eu!" }, headers });
      expect(expectError(illFormed, 400, "validation_error").message).toContain("company_id");
      const unknown = await app.inject({
        url: "/v2/model",
        query: { company_id: COMPANY, verbose: "1" },
        headers,
      });
      expect(expectError(unknown, 400, "validation_error").message).toContain("verbose");
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("not_found", "a path below the route or another method", async () => {
      const { app } = await startAdapterApp({ pricing: getModelStub() });
      const headers = await bearer();
      expectError(await app.inject({ url: "/v2/model/current", headers }), 404, "not_found");
      expectError(await app.inject({ method: "DELETE", url: "/v2/model", headers }), 404, "not_found");
    });

    errors.it("company_not_found", "the same body for an unknown and another partner's company", async () => {
      const stub = getModelStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const unknown = expectError(
        await app.inject({ url: "/v2/model", query: { company_id: "no-such-co" }, headers }),
        404,
        "company_not_found",
      );
      const foreign = expectError(
        await app.inject({ url: "/v2/model", query: { company_id: OTHER_COMPANY }, headers }),
        404,
        "company_not_found",
      );
      expect(foreign.message).toBe(unknown.message);
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("invalid_token", "a token signed with another key, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: getModelStub() });
      const res = await app.inject({
        url: "/v2/model",
        query: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.forged()}` },
      });
      expectError(res, 401, "invalid_token");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("token_expired", "a token past its exp, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: getModelStub() });
      const res = await app.inject({
        url: "/v2/model",
        query: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.expired()}` },
      });
      expectError(res, 401, "token_expired");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("rate_limited", "over the partner's data limit, with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: getModelStub(),
        rateLimits: { dataPerPartner: { max: 1, windowMs: 60_000 } },
      });
      const request = { url: "/v2/model", query: { company_id: COMPANY }, headers: await bearer() };
      expect((await app.inject(request)).statusCode).toBe(200);
      const limited = await app.inject(request);
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.it("internal_error", "an unexpected failure or a malformed answer reveals nothing", async () => {
      const { app, logs } = await startAdapterApp({
        pricing: getModelStub(async (input) => {
          if (input.company_id === COMPANY) throw new Error("ECONNREFUSED postgres://admin:hunter2@db/prod");
          return report;
        }),
      });
      const res = await app.inject({
        url: "/v2/model",
        query: { company_id: COMPANY },
        headers: await bearer(),
      });
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/hunter2|ECONNREFUSED|postgres/);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );

      const { app: broken } = await startAdapterApp({
        pricing: getModelStub(async () => ({ ...report, source: "magic" }) as unknown as ModelReport),
      });
      const malformed = await broken.inject({
        url: "/v2/model",
        query: { company_id: COMPANY },
        headers: await bearer(),
      });
      expect(expectError(malformed, 500, "internal_error").message).toBe(DEFAULT_MESSAGES.internal_error);
    });

    errors.it("unavailable", "the service's 503 with its Retry-After, or a default one", async () => {
      const { app } = await startAdapterApp({
        pricing: getModelStub(async () => {
          throw new ApiError("unavailable", "The model slots are busy; retry shortly.", {
            headers: { "Retry-After": "2" },
          });
        }),
      });
      const headers = await bearer();
      const busy = await app.inject({ url: "/v2/model", query: { company_id: COMPANY }, headers });
      expect(expectError(busy, 503, "unavailable").message).toBe("The model slots are busy; retry shortly.");
      expect(busy.headers["retry-after"]).toBe("2");

      const { app: bare } = await startAdapterApp({
        pricing: getModelStub(async () => {
          throw new ApiError("unavailable");
        }),
      });
      const down = await bare.inject({ url: "/v2/model", query: { company_id: COMPANY }, headers });
      expectError(down, 503, "unavailable");
      expect(Number(down.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.itRefusesWhileReceiving("GET", "/public/v1/v2/model");
    errors.itCoversEveryDocumentedCode();
  });
});
