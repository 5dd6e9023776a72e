import { describe, expect } from "vitest";
import { ApiError, DEFAULT_MESSAGES } from "../errors.js";
import { modelReportSchema } from "../schemas/model.js";
import { COMPANY, expectError, startAdapterApp } from "../test-support/adapter-app.js";
import {
  itAnswers,
  type RouteUnderTest,
  recordCalls,
  routeErrors,
  send,
} from "../test-support/route-errors.js";
import type { ModelReport } from "./promote-model.js";
import { ROLLBACK_ERROR_CODES, type RollbackRequest } from "./rollback-model.js";

const slot = { model_id: "mdl_1", version: 1, trained_at: "2026-11-20T10:00:00.000Z", metrics: {} };
const rolledBack: ModelReport = {
  company_id: COMPANY,
  source: "approved",
  model_id: "mdl_1",
  latest: { ...slot, model_id: "mdl_2", version: 2 },
  approved: { ...slot, approved_at: "2026-11-21T12:00:00.000Z" },
  fallback_reason: null,
};

const url = "/v2/model/rollback";
const body = { company_id: COMPANY, model_id: "mdl_1", expected_approved_model_id: "mdl_2" };

const route: RouteUnderTest<RollbackRequest, ModelReport> = {
  method: "POST",
  url: `/public/v1${url}`,
  bearer: true,
  request: body,
  input: body,
  serve: (rollback) => ({ pricing: { rollback } }),
  answer: rolledBack,
  responseSchema: modelReportSchema,
  malformed: { ...rolledBack, approved: { ...slot } },
  documented: ROLLBACK_ERROR_CODES,
  invalid: [
    [{ company_id: COMPANY, model_id: "mdl_1" }, "expected_approved_model_id"],
    [{ company_id: COMPANY, expected_approved_model_id: null }, "model_id"],
    [{ ...body, force: true }, "force"],
  ],
  notFound: [{ method: "POST", url: `${url}/mdl_1` }],
  rateLimit: "dataPerPartner",
};

describe("POST /v2/model/rollback", () => {
  itAnswers(route, "the model report after the rollback");

  describe("errors", () => {
    const errors = routeErrors(route);
    for (const code of ["approved_model_stale", "rollback_target_invalid", "slots_unreadable"] as const) {
      errors.it(code, "the service's refusal, with the registry's message", async () => {
        const { options } = recordCalls(route, async () => {
          throw new ApiError(code);
        });
        const { app } = await startAdapterApp(options);
        const status = code === "rollback_target_invalid" ? 422 : 409;
        expect(expectError(await send(app, route), status, code).message).toBe(DEFAULT_MESSAGES[code]);
      });
    }
    errors.itCoversEveryDocumentedCode();
  });
});
