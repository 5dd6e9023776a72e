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
import { type ModelReport, PROMOTE_ERROR_CODES, type PromoteRequest } from "./promote-model.js";

const LATEST = "mdl_6";
const slot = {
  model_id: LATEST,
  version: 6,
  trained_at: "2026-11-21T10:00:00.000Z",
  metrics: { upliftPct: 3.1 },
};
const promoted: ModelReport = {
  company_id: COMPANY,
  source: "approved",
  model_id: LATEST,
  latest: slot,
  approved: { ...slot, approved_at: "2026-11-21T12:00:00.000Z" },
  fallback_reason: null,
};

const url = "/v2/model/promote";
const body = { company_id: COMPANY, model_id: LATEST };

const route: RouteUnderTest<PromoteRequest, ModelReport> = {
  method: "POST",
  url: `/public/v1${url}`,
  bearer: true,
  request: body,
  input: body,
  serve: (promote) => ({ pricing: { promote } }),
  answer: promoted,
  responseSchema: modelReportSchema,
  malformed: { ...promoted, approved: { ...slot } },
  documented: PROMOTE_ERROR_CODES,
  invalid: [
    [{ company_id: COMPANY }, "model_id"],
    [{ model_id: LATEST }, "company_id"],
    [{ company_id: COMPANY, model_id: "" }, "model_id"],
    [{ company_id: COMPANY, model_id: 6 }, "model_id"],
    [{ ...body, force: true }, "force"],
  ],
  notFound: [{ method: "POST", url: `${url}/${LATEST}` }],
  rateLimit: "dataPerPartner",
};

describe("POST /v2/model/promote", () => {
  itAnswers(route, "the model report after promotion");

  describe("errors", () => {
    const errors = routeErrors(route);

    errors.it("model_id_stale", "a model_id that is not the current latest", async () => {
      // As the contract says: only the current latest id is promoted.
      const { options } = recordCalls(route, async (input) => {
        if (input.model_id !== LATEST) throw new ApiError("model_id_stale");
        return promoted;
      });
      const { app } = await startAdapterApp(options);
      const res = await send(app, route, { request: { ...body, model_id: "mdl_5" } });
      expect(expectError(res, 409, "model_id_stale").message).toBe(DEFAULT_MESSAGES.model_id_stale);
    });

    errors.it("slots_unreadable", "a company whose slot record does not parse", async () => {
      const { options } = recordCalls(route, async () => {
        throw new ApiError("slots_unreadable");
      });
      const { app } = await startAdapterApp(options);
      expect(expectError(await send(app, route), 409, "slots_unreadable").message).toBe(
        DEFAULT_MESSAGES.slots_unreadable,
      );
    });

    errors.itCoversEveryDocumentedCode();
  });
});
