import { describe, expect, it } from "vitest";
import { modelReportSchema } from "../schemas/model.js";
import { bearer, COMPANY, RULE_FALLBACK_REPORT, startAdapterApp } from "../test-support/adapter-app.js";
import { itAnswers, type RouteUnderTest, recordCalls, routeErrors } from "../test-support/route-errors.js";
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

const route: RouteUnderTest<GetModelQuery, ModelReport> = {
  method: "GET",
  url: "/public/v1/v2/model",
  bearer: true,
  request: { company_id: COMPANY },
  input: { company_id: COMPANY },
  serve: (getModel) => ({ pricing: { getModel } }),
  answer: report,
  responseSchema: modelReportSchema,
  malformed: { ...report, source: "magic" },
  documented: GET_MODEL_ERROR_CODES,
  invalid: [
    [{}, "company_id"],
    [{ company_id: "acme eu!" }, "company_id"],
    [{ company_id: COMPANY, verbose: "1" }, "verbose"],
  ],
  notFound: [{ method: "GET", url: "/v2/model/current" }],
  rateLimit: "dataPerPartner",
};

describe("GET /v2/model", () => {
  itAnswers(route, "the model report");

  it("200: a company on the rule fallback reports null slots and its reason", async () => {
    const { app } = await startAdapterApp(recordCalls(route, async () => RULE_FALLBACK_REPORT).options);
    const res = await app.inject({
      url: "/v2/model",
      query: { company_id: COMPANY },
      headers: await bearer(),
    });
    expect(res.statusCode).toBe(200);
    expect(modelReportSchema.parse(res.json())).toEqual(RULE_FALLBACK_REPORT);
  });

  describe("errors", () => {
    routeErrors(route).itCoversEveryDocumentedCode();
  });
});
