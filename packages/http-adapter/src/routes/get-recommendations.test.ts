import { describe, expect, it } from "vitest";
import { strongEtag } from "../conditional-get.js";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { recommendationsResponseSchema } from "../schemas/recommendations.js";
import { bearer, COMPANY, expectError, startAdapterApp } from "../test-support/adapter-app.js";
import { itAnswers, type RouteUnderTest, recordCalls, routeErrors } from "../test-support/route-errors.js";
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
      expected_units_p10: 8,
      expected_units_p90: 17,
      exploratory: false,
      override_id: null,
      lowest_price_30d: 18.99,
      expected_revenue: 241.68,
      source: "approved",
      model_id: "mdl_3",
    },
  ],
};

const url = "/v2/recommendations";

const route: RouteUnderTest<GetRecommendationsQuery, RecommendationsResponse> = {
  method: "GET",
  url: `/public/v1${url}`,
  bearer: true,
  request: { company_id: COMPANY },
  input: { company_id: COMPANY, runs_ago: 0, explain: false },
  serve: (getRecommendations) => ({ pricing: { getRecommendations } }),
  answer: read,
  responseSchema: recommendationsResponseSchema,
  malformed: { ...read, recommendations: [{ ...read.recommendations[0]!, date: "tomorrow" }] },
  documented: GET_RECOMMENDATIONS_ERROR_CODES,
  invalid: [
    [{}, "company_id"],
    [{ company_id: COMPANY, start_date: "22/11/2026" }, "start_date"],
    [{ company_id: COMPANY, end_date: "2026-02-30" }, "end_date"],
    [{ company_id: COMPANY, start_date: "2026-11-25", end_date: "2026-11-24" }, "start_date"],
    [{ company_id: COMPANY, runs_ago: "-1" }, "runs_ago"],
    [{ company_id: COMPANY, runs_ago: "1.5" }, "runs_ago"],
    [{ company_id: COMPANY, product_id: "" }, "product_id"],
    [{ company_id: COMPANY, explain: "1" }, "explain"],
    [{ company_id: COMPANY, explain: "yes" }, "explain"],
    [{ company_id: COMPANY, currency: "EUR" }, "currency"],
  ],
  notFound: [{ method: "GET", url: `${url}/latest` }],
  rateLimit: "dataPerPartner",
};

describe("GET /v2/recommendations", () => {
  itAnswers(route, "the run's recommendations");

  it("hands the service the validated query: runs_ago 0 by default, a number when given, the filters as sent", async () => {
    const { calls, options } = recordCalls(route);
    const { app } = await startAdapterApp(options);
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
    await app.inject({ url, query: { company_id: COMPANY, explain: "true" }, headers });
    expect(calls.map((c) => c.input)).toEqual([
      { company_id: COMPANY, runs_ago: 0, explain: false },
      { ...filtered, runs_ago: 2, explain: false },
      { company_id: COMPANY, runs_ago: 0, explain: true },
    ]);
  });

  it("200: sends the bytes of the service's serialized fast path as they are, without the slow path", async () => {
    const slow = recordCalls(route);
    const bytes = Buffer.from(JSON.stringify(read), "utf8");
    const fastCalls: GetRecommendationsQuery[] = [];
    const { app } = await startAdapterApp({
      pricing: {
        ...slow.options.pricing,
        getRecommendationsJson: async (input) => {
          fastCalls.push(input);
          return { bytes, etag: strongEtag(bytes) };
        },
      },
    });
    const res = await app.inject({ url, query: { company_id: COMPANY }, headers: await bearer() });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(res.headers.etag).toBe(strongEtag(bytes));
    expect(recommendationsResponseSchema.parse(res.json())).toEqual(read);
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(fastCalls).toEqual([{ company_id: COMPANY, runs_ago: 0, explain: false }]);
    expect(slow.calls).toHaveLength(0);
  });

  it("sends the fast path's own tag without hashing the bytes, and answers 304 to it", async () => {
    // A tag no hash of these bytes gives: seeing it on the wire shows the adapter took it as given.
    const given = '"tag-stored-with-the-bytes"';
    const bytes = Buffer.from(JSON.stringify(read), "utf8");
    const { app } = await startAdapterApp({
      pricing: { getRecommendationsJson: async () => ({ bytes, etag: given }) },
    });
    const headers = await bearer();
    const plain = await app.inject({ url, query: { company_id: COMPANY }, headers });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers.etag).toBe(given);
    expect(plain.rawPayload.equals(bytes)).toBe(true);
    const same = await app.inject({
      url,
      query: { company_id: COMPANY },
      headers: { ...headers, "if-none-match": given },
    });
    expect(same.statusCode).toBe(304);
    expect(same.headers.etag).toBe(given);
    expect(same.body).toBe("");
    const other = await app.inject({
      url,
      query: { company_id: COMPANY },
      headers: { ...headers, "if-none-match": strongEtag(bytes) },
    });
    expect(other.statusCode).toBe(200);
    expect(other.rawPayload.equals(bytes)).toBe(true);
  });

  describe("errors", () => {
    const errors = routeErrors(route);

    errors.it("no_run_at_offset", "runs_ago past the oldest run", async () => {
      const { options } = recordCalls(route, async (input) => {
        if (input.runs_ago > 0) throw new ApiError("no_run_at_offset");
        return read;
      });
      const { app } = await startAdapterApp(options);
      const res = await app.inject({
        url,
        query: { company_id: COMPANY, runs_ago: "3" },
        headers: await bearer(),
      });
      expect(expectError(res, 404, "no_run_at_offset").message).toBe(DEFAULT_MESSAGES.no_run_at_offset);
    });

    errors.itCoversEveryDocumentedCode();
  });
});
