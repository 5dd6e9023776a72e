import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { DATA_ROUTE_ERROR_CODES, errorResponses } from "../errors.js";
import { requestContext } from "../request-context.js";
import { modelHistoryQuerySchema, modelHistoryResponseSchema } from "../schemas/model.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { ModelHistory, ModelHistoryQuery } from "../schemas/model.js";

export const GET_MODEL_HISTORY_ERROR_CODES = [...DATA_ROUTE_ERROR_CODES, "slots_unreadable"] as const;

/** GET /v2/model/history: the company's stored artifacts and slot changes, newest first. */
export function registerGetModelHistory(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "GET",
    url: "/v2/model/history",
    schema: {
      operationId: "getModelHistory",
      summary: "List trained artifacts and model slot changes",
      description:
        "Stored artifacts (newest version first) with when each was last approved, and the slot changes " +
        "(trained, promoted, rolled_back; newest first). limit and offset page both lists. An artifact with " +
        "approved_from set is a rollback target for POST /v2/model/rollback.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      querystring: modelHistoryQuerySchema,
      response: { 200: modelHistoryResponseSchema, ...errorResponses(GET_MODEL_HISTORY_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.getModelHistory(request.query, requestContext(request)),
  });
}
