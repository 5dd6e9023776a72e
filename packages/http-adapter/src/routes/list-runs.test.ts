import { describe, expect, it } from "vitest";
import { listRunsResponseSchema } from "../schemas/runs.js";
import { bearer, COMPANY, startAdapterApp } from "../test-support/adapter-app.js";
import { itAnswers, type RouteUnderTest, recordCalls, routeErrors } from "../test-support/route-errors.js";
import { LIST_RUNS_ERROR_CODES, type ListRunsQuery, type ListRunsResponse } from "./list-runs.js";

const listing: ListRunsResponse = {
  company_id: COMPANY,
  total: 2,
  runs: [
    {
      run_id: "run_2",
      company_id: COMPANY,
      kind: "on_demand",
      as_of: "2026-11-21",
      created_at: "2026-11-21T09:30:00.000Z",
      source: "latest",
      model_id: "mdl_2",
      start_date: "2026-11-22",
      end_date: "2026-12-05",
      products: 3,
      recommendation_count: 42,
      runs_ago: 0,
    },
    {
      run_id: "run_1",
      company_id: COMPANY,
      kind: "nightly",
      as_of: "2026-11-21",
      created_at: "2026-11-21T02:00:00.000Z",
      source: "rule",
      model_id: null,
      start_date: "2026-11-22",
      end_date: "2026-12-05",
      products: 3,
      recommendation_count: 42,
      runs_ago: 1,
    },
  ],
};

const route: RouteUnderTest<ListRunsQuery, ListRunsResponse> = {
  method: "GET",
  url: "/public/v1/v2/runs",
  bearer: true,
  request: { company_id: COMPANY },
  input: { company_id: COMPANY, limit: 20, offset: 0 },
  serve: (listRuns) => ({ pricing: { listRuns } }),
  answer: listing,
  responseSchema: listRunsResponseSchema,
  malformed: { ...listing, total: "two" },
  documented: LIST_RUNS_ERROR_CODES,
  invalid: [
    [{}, "company_id"],
    [{ company_id: COMPANY, limit: "0" }, "limit"],
    [{ company_id: COMPANY, limit: "101" }, "limit"],
    [{ company_id: COMPANY, limit: "ten" }, "limit"],
    [{ company_id: COMPANY, offset: "-1" }, "offset"],
    [{ company_id: COMPANY, page: "2" }, "page"],
  ],
  notFound: [{ method: "GET", url: "/v2/runs/run_1" }],
  rateLimit: "dataPerPartner",
};

describe("GET /v2/runs", () => {
  itAnswers(route, "the listing");

  it("hands the service the validated query: limit 20 and offset 0 by default, numbers when given", async () => {
    const { calls, options } = recordCalls(route);
    const { app } = await startAdapterApp(options);
    const headers = await bearer();
    await app.inject({ url: "/v2/runs", query: { company_id: COMPANY }, headers });
    await app.inject({ url: "/v2/runs", query: { company_id: COMPANY, limit: "100", offset: "5" }, headers });
    expect(calls.map((c) => c.input)).toEqual([
      { company_id: COMPANY, limit: 20, offset: 0 },
      { company_id: COMPANY, limit: 100, offset: 5 },
    ]);
  });

  describe("errors", () => {
    routeErrors(route).itCoversEveryDocumentedCode();
  });
});
