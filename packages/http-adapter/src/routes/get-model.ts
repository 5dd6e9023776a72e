import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { DATA_ROUTE_ERROR_CODES, errorResponses } from "../errors.js";
import { requestContext } from "../request-context.js";
import { getModelQuerySchema, modelReportSchema } from "../schemas/model.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { GetModelQuery, ModelReport } from "../schemas/model.js";

export const GET_MODEL_ERROR_CODES = DATA_ROUTE_ERROR_CODES;

/** GET /v2/model: which artifact backs inference (approved, latest or rule). */
export function registerGetModel(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "GET",
    url: "/v2/model",
    schema: {
      operationId: "getModel",
      summary: "Inspect the active V2 policy",
      description: "Reports the source backing RL inference for the company and both slots.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      querystring: getModelQuerySchema,
      response: { 200: modelReportSchema, ...errorResponses(GET_MODEL_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.getModel(request.query, requestContext(request)),
  });
}
