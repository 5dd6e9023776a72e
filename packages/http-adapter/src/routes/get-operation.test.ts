import { describe, expect, it } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { type Operation, type OperationParams, operationSchema } from "../schemas/operations.js";
import { bearer, COMPANY, expectError, OTHER_PARTNER, startAdapterApp } from "../test-support/adapter-app.js";
import {
  itAnswers,
  type RouteUnderTest,
  recordCalls,
  routeErrors,
  send,
} from "../test-support/route-errors.js";
import { GET_OPERATION_ERROR_CODES } from "./get-operation.js";

const OPERATION_ID = "op_01JD2W5K3Q7Y8Z9A0B1C2D3E4F";

const succeeded: Operation = {
  operation_id: OPERATION_ID,
  kind: "train",
  company_id: COMPANY,
  status: "succeeded",
  created_at: "2026-11-21T12:00:00.000Z",
  updated_at: "2026-11-21T12:00:31.000Z",
  progress: 1,
  result: {
    company_id: COMPANY,
    model_id: "mdl_5",
    version: 5,
    trained_at: "2026-11-21T12:00:31.000Z",
    auto_approved: false,
    slots: { latest: "mdl_5", approved: "mdl_4" },
    metrics: { policyMargin: 51258.51, ruleMargin: 49875.62, upliftPct: 2.77 },
  },
  error: null,
};

const route: RouteUnderTest<OperationParams, Operation> = {
  method: "GET",
  url: `/public/v1/v2/operations/${OPERATION_ID}`,
  bearer: true,
  request: {},
  input: { operation_id: OPERATION_ID },
  serve: (getOperation) => ({ pricing: { getOperation } }),
  answer: succeeded,
  responseSchema: operationSchema,
  malformed: { ...succeeded, status: "done" },
  documented: GET_OPERATION_ERROR_CODES,
  invalid: [[{ company_id: COMPANY }, "company_id"]],
  notFound: [{ method: "GET", url: `/v2/operations/${OPERATION_ID}/result` }],
};

describe("GET /v2/operations/{operation_id}", () => {
  itAnswers(route, "the operation");

  it("200: a failed operation carries its error, a queued one no progress", async () => {
    const failed: Operation = {
      ...succeeded,
      status: "failed",
      progress: 0.2,
      result: null,
      error: { code: "insufficient_history", message: "acme-eu has 12 days of sales; training needs 28." },
    };
    const queued: Operation = { ...succeeded, status: "queued", progress: null, result: null };
    for (const answer of [failed, queued]) {
      const { app } = await startAdapterApp(recordCalls(route, async () => answer).options);
      const res = await send(app, route);
      expect(res.statusCode).toBe(200);
      expect(operationSchema.parse(res.json())).toEqual(answer);
    }
  });

  describe("errors", () => {
    const errors = routeErrors(route);

    it("400 validation_error: an operation id that is not one, and an unknown query parameter", async () => {
      const { calls, options } = recordCalls(route);
      const { app } = await startAdapterApp(options);
      const headers = await bearer();
      const badId = await app.inject({ method: "GET", url: "/public/v1/v2/operations/op%20x", headers });
      expect(expectError(badId, 400, "validation_error").message).toContain("operation_id");
      const extra = await send(app, route, { request: { company_id: COMPANY } });
      expect(expectError(extra, 400, "validation_error").message).toContain("company_id");
      expect(calls).toHaveLength(0);
    });

    errors.it(
      "operation_not_found",
      "the service's refusal, with the caller's principal handed to it",
      async () => {
        const { calls, options } = recordCalls(route, () =>
          Promise.reject(new ApiError("operation_not_found")),
        );
        const { app } = await startAdapterApp(options);
        const res = await send(app, route, { headers: await bearer(OTHER_PARTNER) });
        expect(expectError(res, 404, "operation_not_found").message).toBe(
          DEFAULT_MESSAGES.operation_not_found,
        );
        expect(calls[0]?.ctx.principal?.partnerId).toBe(OTHER_PARTNER);
      },
    );

    errors.it("rate_limited", "counted against the partner's data limit, with Retry-After", async () => {
      const { app } = await startAdapterApp({
        ...recordCalls(route).options,
        rateLimits: { dataPerPartner: { max: 1, windowMs: 60_000 } },
      });
      expect((await send(app, route)).statusCode).toBe(200);
      const limited = await send(app, route);
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect((await send(app, route, { headers: await bearer(OTHER_PARTNER) })).statusCode).toBe(200);
    });

    errors.itCoversEveryDocumentedCode();
  });
});
