import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  BODY_ERROR_CODES,
  DATA_ROUTE_ERROR_CODES,
  errorResponses,
  IDEMPOTENT_ERROR_CODES,
} from "../errors.js";
import { describeExpensiveLimits } from "../expensive-operations.js";
import { jsonInTurns } from "../json-in-turns.js";
import { requestContext } from "../request-context.js";
import {
  computeBodySchema,
  computeResponseSchema,
  recommendationSchema,
} from "../schemas/recommendations.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { ComputeRequest, ComputeResponse } from "../schemas/recommendations.js";

export const COMPUTE_ERROR_CODES = [
  "answer_too_large",
  ...DATA_ROUTE_ERROR_CODES,
  ...BODY_ERROR_CODES,
  ...IDEMPOTENT_ERROR_CODES,
] as const;

const answerHeadSchema = computeResponseSchema.omit({ recommendations: true });

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
      description:
        "Synchronous and expensive; prefer reading persisted runs. dry_run computes without persisting. " +
        "An answer over the server's size limit (products x days, each explained price counting twice; 40,000 " +
        "by default) is refused before planning with 422 answer_too_large: ask for fewer days at a time " +
        `(start_date, end_date). ${describeExpensiveLimits("compute", deps.limits)}`,
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      body: computeBodySchema,
      response: { 200: computeResponseSchema, ...errorResponses(COMPUTE_ERROR_CODES) },
    },
    handler: async (request, reply) => {
      const { recommendations, ...head } = await deps.pricing.compute(request.body, requestContext(request));
      // Checked and serialized in turns rather than by the response serializer, which would hold the event loop
      // for the whole of a large answer; a malformed answer still fails (ZodError: 500) before anything is sent.
      const checked = { ...answerHeadSchema.parse(head), recommendations };
      const body = await jsonInTurns(checked, "recommendations", (r) => recommendationSchema.parse(r));
      return (reply as unknown as FastifyReply).type("application/json; charset=utf-8").send(body);
    },
  });
}
