import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  BODY_ERROR_CODES,
  DATA_ROUTE_ERROR_CODES,
  errorResponses,
  IDEMPOTENT_ERROR_CODES,
} from "../errors.js";
import { requestContext } from "../request-context.js";
import { modelReportSchema, rollbackBodySchema } from "../schemas/model.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { RollbackRequest } from "../schemas/model.js";

export const ROLLBACK_ERROR_CODES = [
  ...DATA_ROUTE_ERROR_CODES,
  ...BODY_ERROR_CODES,
  ...IDEMPOTENT_ERROR_CODES,
  "approved_model_stale",
  "rollback_target_invalid",
  "slots_unreadable",
] as const;

/** POST /v2/model/rollback: approve again an artifact that was approved before. */
export function registerRollbackModel(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "POST",
    url: "/v2/model/rollback",
    bodyLimit: deps.bodyLimit,
    schema: {
      operationId: "rollbackModel",
      summary: "Approve again an artifact approved before",
      description:
        "model_id must have been approved before (GET /v2/model/history: approved_from set) and its artifact " +
        "must still load and verify, else 422 rollback_target_invalid. expected_approved_model_id must equal the " +
        "current approved artifact (null: none approved), else 409 approved_model_stale and nothing changes. " +
        "Rolling back to the artifact approved now changes nothing. Answers with the model report.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      body: rollbackBodySchema,
      response: { 200: modelReportSchema, ...errorResponses(ROLLBACK_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.rollback(request.body, requestContext(request)),
  });
}
