import { describe, expect } from "vitest";
import { ApiError } from "../errors.js";
import { modelHistoryResponseSchema } from "../schemas/model.js";
import { COMPANY, expectError, startAdapterApp } from "../test-support/adapter-app.js";
import {
  itAnswers,
  type RouteUnderTest,
  recordCalls,
  routeErrors,
  send,
} from "../test-support/route-errors.js";
import {
  GET_MODEL_HISTORY_ERROR_CODES,
  type ModelHistory,
  type ModelHistoryQuery,
} from "./get-model-history.js";

const history: ModelHistory = {
  company_id: COMPANY,
  total_artifacts: 1,
  total_events: 2,
  artifacts: [
    {
      model_id: "mdl_1",
      version: 1,
      trained_at: "2026-11-20T10:00:00.000Z",
      metrics: { upliftPct: 2.5 },
      approved_from: "2026-11-20T11:00:00.000Z",
      approved_until: null,
    },
  ],
  events: [
    { at: "2026-11-20T11:00:00.000Z", kind: "promoted", model_id: "mdl_1", by: "operator" },
    { at: "2026-11-20T10:00:00.000Z", kind: "trained", model_id: "mdl_1", by: null },
  ],
};

const route: RouteUnderTest<ModelHistoryQuery, ModelHistory> = {
  method: "GET",
  url: "/public/v1/v2/model/history",
  bearer: true,
  request: { company_id: COMPANY },
  input: { company_id: COMPANY, limit: 20, offset: 0 },
  serve: (getModelHistory) => ({ pricing: { getModelHistory } }),
  answer: history,
  responseSchema: modelHistoryResponseSchema,
  malformed: { ...history, events: [{ ...history.events[0], kind: "deleted" }] },
  documented: GET_MODEL_HISTORY_ERROR_CODES,
  invalid: [
    [{}, "company_id"],
    [{ company_id: COMPANY, limit: "0" }, "limit"],
    [{ company_id: COMPANY, offset: "-1" }, "offset"],
    [{ company_id: COMPANY, since: "2026-01-01" }, "since"],
  ],
  notFound: [{ method: "GET", url: "/v2/model/history/mdl_1" }],
  rateLimit: "dataPerPartner",
};

describe("GET /v2/model/history", () => {
  itAnswers(route, "the artifacts and slot changes");

  describe("errors", () => {
    const errors = routeErrors(route);
    errors.it("slots_unreadable", "a company whose slot record does not parse", async () => {
      const { options } = recordCalls(route, async () => {
        throw new ApiError("slots_unreadable");
      });
      const { app } = await startAdapterApp(options);
      expect(expectError(await send(app, route), 409, "slots_unreadable").code).toBe("slots_unreadable");
    });
    errors.itCoversEveryDocumentedCode();
  });
});
