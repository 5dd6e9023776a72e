import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { listRunsResponseSchema } from "../schemas/runs.js";
import type { RequestContext } from "../services.js";
import {
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
} from "../test-support/adapter-app.js";
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

/** The one operation behind the route, recording what it was asked. */
function listRunsStub(answer: (input: ListRunsQuery) => Promise<ListRunsResponse> = async () => listing) {
  const calls: { input: ListRunsQuery; ctx: RequestContext }[] = [];
  return {
    calls,
    listRuns: async (input: ListRunsQuery, ctx: RequestContext) => {
      calls.push({ input, ctx });
      return answer(input);
    },
  };
}

describe("GET /v2/runs", () => {
  it("200: the listing, under /public/v1 and at the host root, with the caller's context", async () => {
    const stub = listRunsStub();
    const { app } = await startAdapterApp({ pricing: stub });
    for (const url of ["/public/v1/v2/runs", "/v2/runs"]) {
      const res = await app.inject({ url, query: { company_id: COMPANY }, headers: await bearer() });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(listRunsResponseSchema.parse(res.json())).toEqual(listing);
      const { ctx } = stub.calls.at(-1)!;
      expect(ctx.requestId).toBe(res.headers["x-request-id"]);
      expect(ctx.principal).toEqual({ partnerId: PARTNER, tokenId: expect.any(String) });
    }
  });

  it("hands the service the validated query: limit 20 and offset 0 by default, numbers when given", async () => {
    const stub = listRunsStub();
    const { app } = await startAdapterApp({ pricing: stub });
    const headers = await bearer();
    await app.inject({ url: "/v2/runs", query: { company_id: COMPANY }, headers });
    await app.inject({ url: "/v2/runs", query: { company_id: COMPANY, limit: "100", offset: "5" }, headers });
    expect(stub.calls.map((c) => c.input)).toEqual([
      { company_id: COMPANY, limit: 20, offset: 0 },
      { company_id: COMPANY, limit: 100, offset: 5 },
    ]);
  });

  describe("errors", () => {
    const errors = documentedErrors(LIST_RUNS_ERROR_CODES);

    errors.it("validation_error", "names the missing, out-of-range or unknown parameter", async () => {
      const stub = listRunsStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const cases: [Record<string, string>, string][] = [
        [{}, "company_id"],
        [{ company_id: COMPANY, limit: "0" }, "limit"],
        [{ company_id: COMPANY, limit: "101" }, "limit"],
        [{ company_id: COMPANY, limit: "ten" }, "limit"],
        [{ company_id: COMPANY, offset: "-1" }, "offset"],
        [{ company_id: COMPANY, page: "2" }, "page"],
      ];
      for (const [query, field] of cases) {
        const res = await app.inject({ url: "/v2/runs", query, headers });
        expect(expectError(res, 400, "validation_error").message, JSON.stringify(query)).toContain(field);
      }
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("not_found", "a path below the route or another method", async () => {
      const { app } = await startAdapterApp({ pricing: listRunsStub() });
      const headers = await bearer();
      expectError(await app.inject({ url: "/v2/runs/run_1", headers }), 404, "not_found");
      expectError(await app.inject({ method: "POST", url: "/v2/runs", headers }), 404, "not_found");
    });

    errors.it("company_not_found", "the same body for an unknown and another partner's company", async () => {
      const stub = listRunsStub();
      const { app } = await startAdapterApp({ pricing: stub });
      const headers = await bearer();
      const unknown = expectError(
        await app.inject({ url: "/v2/runs", query: { company_id: "no-such-co" }, headers }),
        404,
        "company_not_found",
      );
      const foreign = expectError(
        await app.inject({ url: "/v2/runs", query: { company_id: OTHER_COMPANY }, headers }),
        404,
        "company_not_found",
      );
      expect(foreign.message).toBe(unknown.message);
      expect(stub.calls).toHaveLength(0);
    });

    errors.it("invalid_token", "a token signed with another key, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: listRunsStub() });
      const res = await app.inject({
        url: "/v2/runs",
        query: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.forged()}` },
      });
      expectError(res, 401, "invalid_token");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it("token_expired", "a token past its exp, with the challenge", async () => {
      const { app } = await startAdapterApp({ pricing: listRunsStub() });
      const res = await app.inject({
        url: "/v2/runs",
        query: { company_id: COMPANY },
        headers: { authorization: `Bearer ${await tokens.expired()}` },
      });
      expectError(res, 401, "token_expired");
      expect(res.headers["www-authenticate"]).toBe(BEARER_CHALLENGE);
    });

    errors.it(
      "rate_limited",
      "over the partner's data limit, with Retry-After; others keep theirs",
      async () => {
        const { app } = await startAdapterApp({
          pricing: listRunsStub(async (input) => ({ ...listing, company_id: input.company_id, runs: [] })),
          rateLimits: { dataPerPartner: { max: 1, windowMs: 60_000 } },
        });
        const request = { url: "/v2/runs", query: { company_id: COMPANY }, headers: await bearer() };
        expect((await app.inject(request)).statusCode).toBe(200);
        const limited = await app.inject(request);
        expectError(limited, 429, "rate_limited");
        expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
        const other = await app.inject({
          url: "/v2/runs",
          query: { company_id: OTHER_COMPANY },
          headers: await bearer(OTHER_PARTNER),
        });
        expect(other.statusCode).toBe(200);
      },
    );

    errors.it("internal_error", "an unexpected failure or a malformed answer reveals nothing", async () => {
      const { app, logs } = await startAdapterApp({
        pricing: listRunsStub(async () => {
          throw new Error("SQLITE_CORRUPT: /var/lib/pricing/secret.db");
        }),
      });
      const res = await app.inject({
        url: "/v2/runs",
        query: { company_id: COMPANY },
        headers: await bearer(),
      });
      const error = expectError(res, 500, "internal_error");
      expect(error.message).toBe(DEFAULT_MESSAGES.internal_error);
      expect(res.body).not.toMatch(/SQLITE|secret\.db/);
      expect(logs).toContainEqual(
        expect.objectContaining({ level: 50, request_id: error.request_id, code: "internal_error" }),
      );

      const { app: broken } = await startAdapterApp({
        pricing: listRunsStub(async () => ({ ...listing, total: "two" }) as unknown as ListRunsResponse),
      });
      const malformed = await broken.inject({
        url: "/v2/runs",
        query: { company_id: COMPANY },
        headers: await bearer(),
      });
      expect(expectError(malformed, 500, "internal_error").message).toBe(DEFAULT_MESSAGES.internal_error);
    });

    errors.it("unavailable", "the service's 503 with Retry-After", async () => {
      const { app } = await startAdapterApp({
        pricing: listRunsStub(async () => {
          throw new ApiError("unavailable");
        }),
      });
      const res = await app.inject({
        url: "/v2/runs",
        query: { company_id: COMPANY },
        headers: await bearer(),
      });
      expectError(res, 503, "unavailable");
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    });

    errors.itRefusesWhileReceiving("GET", "/public/v1/v2/runs");
    errors.itCoversEveryDocumentedCode();
  });
});
