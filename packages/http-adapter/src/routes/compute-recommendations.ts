import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  BODY_ERROR_CODES,
  DATA_ROUTE_ERROR_CODES,
  errorResponses,
  IDEMPOTENT_ERROR_CODES,
} from "../errors.js";
import { describeExpensiveLimits } from "../expensive-operations.js";
import { requestContext } from "../request-context.js";
import { computeBodySchema, computeResponseSchema } from "../schemas/recommendations.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { ComputeRequest, ComputeResponse } from "../schemas/recommendations.js";

export const COMPUTE_ERROR_CODES = [
  ...DATA_ROUTE_ERROR_CODES,
  ...BODY_ERROR_CODES,
  ...IDEMPOTENT_ERROR_CODES,
] as const;

/** POST /v2/recommendations/compute: run the orchestrator now; persists a run unless dry_run. */
export function registerComputeRecommendations(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "POST",
    url: "/v2/recommendations/compute",
    bodyLimit: deps.bodyLimit,
    config: { expensive: "compute" },
    schema: {
      operationId: "computeRecommendations",
      summary: "Compute RL recommendations on demand",
      description: `Synchronous and expensive; prefer reading persisted runs. dry_run computes without persisting. ${describeExpensiveLimits("compute", deps.limits)}`,
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      body: computeBodySchema,
      response: { 200: computeResponseSchema, ...errorResponses(COMPUTE_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.compute(request.body, requestContext(request)),
  });
}
