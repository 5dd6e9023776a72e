import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  BODY_ERROR_CODES,
  DATA_ROUTE_ERROR_CODES,
  errorResponses,
  IDEMPOTENT_ERROR_CODES,
} from "../errors.js";
import { requestContext } from "../request-context.js";
import { modelReportSchema, promoteBodySchema } from "../schemas/model.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { ModelReport, PromoteRequest } from "../schemas/model.js";

export const PROMOTE_ERROR_CODES = [
  ...DATA_ROUTE_ERROR_CODES,
  ...BODY_ERROR_CODES,
  ...IDEMPOTENT_ERROR_CODES,
  "model_id_stale",
  "slots_unreadable",
] as const;

/** POST /v2/model/promote: move the current latest artifact into the approved slot. */
export function registerPromoteModel(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "POST",
    url: "/v2/model/promote",
    bodyLimit: deps.bodyLimit,
    schema: {
      operationId: "promoteModel",
      summary: "Promote a trained artifact to the approved slot",
      description:
        "model_id must equal the current latest artifact id (read it from GET /v2/model), else 409.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      body: promoteBodySchema,
      response: { 200: modelReportSchema, ...errorResponses(PROMOTE_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.promote(request.body, requestContext(request)),
  });
}
