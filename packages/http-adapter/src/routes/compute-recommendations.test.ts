import { describe, expect, it } from "vitest";
import { ApiError } from "../errors.js";
import { computeResponseSchema } from "../schemas/recommendations.js";
import { bearer, COMPANY, expectError, startAdapterApp } from "../test-support/adapter-app.js";
import {
  itAnswers,
  type RouteUnderTest,
  recordCalls,
  routeErrors,
  send,
} from "../test-support/route-errors.js";
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
  expected_units_p10: 6,
  expected_units_p90: 14,
  exploratory: true,
  override_id: null,
  lowest_price_30d: 19.99,
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

const url = "/v2/recommendations/compute";

const route: RouteUnderTest<ComputeRequest, ComputeResponse> = {
  method: "POST",
  url: `/public/v1${url}`,
  bearer: true,
  request: { company_id: COMPANY },
  input: { company_id: COMPANY, dry_run: false, explain: false },
  serve: (compute) => ({ pricing: { compute } }),
  answer: persisted,
  responseSchema: computeResponseSchema,
  malformed: { ...persisted, persisted: undefined },
  documented: COMPUTE_ERROR_CODES,
  invalid: [
    [{}, "company_id"],
    [{ company_id: COMPANY, dry_run: "yes" }, "dry_run"],
    [{ company_id: COMPANY, explain: "true" }, "explain"],
    [{ company_id: COMPANY, start_date: "2026-13-01" }, "start_date"],
    [{ company_id: COMPANY, start_date: "2026-11-28", end_date: "2026-11-22" }, "start_date"],
    [{ company_id: COMPANY, horizon_days: 7 }, "horizon_days"],
    // 367 days, wherever they lie: the one bound that needs no company's today.
    [{ company_id: COMPANY, start_date: "2026-11-22", end_date: "2027-11-23" }, "end_date"],
    [{ company_id: COMPANY, start_date: "3088-01-01", end_date: "3089-01-02" }, "end_date"],
  ],
  notFound: [{ method: "POST", url: `${url}/now` }],
  rateLimit: "computePerPartner",
};

describe("POST /v2/recommendations/compute", () => {
  itAnswers(route, "a persisted run");

  it("200: a dry run over a date range answers run null and passes the range on", async () => {
    const { calls, options } = recordCalls(route, async (input) => (input.dry_run ? dryRun : persisted));
    const { app } = await startAdapterApp(options);
    const body = { company_id: COMPANY, dry_run: true, start_date: "2026-11-22", end_date: "2026-11-28" };
    const res = await app.inject({ method: "POST", url, payload: body, headers: await bearer() });
    expect(res.statusCode).toBe(200);
    expect(computeResponseSchema.parse(res.json())).toEqual(dryRun);
    expect(calls.map((c) => c.input)).toEqual([{ ...body, explain: false }]);
  });

  describe("errors", () => {
    const errors = routeErrors(route);
    errors.it("answer_too_large", "an answer over the server's price limit", async () => {
      const message =
        "The answer would hold 109800 prices (300 products x 366 days), over this server's limit.";
      const { app } = await startAdapterApp(
        route.serve(() => Promise.reject(new ApiError("answer_too_large", message))),
      );
      expect(expectError(await send(app, route), 422, "answer_too_large").message).toBe(message);
    });
    errors.itCoversEveryDocumentedCode();
  });
});
