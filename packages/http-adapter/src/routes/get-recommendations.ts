import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { DATA_ROUTE_ERROR_CODES, errorResponses } from "../errors.js";
import { requestContext } from "../request-context.js";
import { getRecommendationsQuerySchema, recommendationsResponseSchema } from "../schemas/recommendations.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { GetRecommendationsQuery, RecommendationsResponse } from "../schemas/recommendations.js";

export const GET_RECOMMENDATIONS_ERROR_CODES = [...DATA_ROUTE_ERROR_CODES, "no_run_at_offset"] as const;

/** GET /v2/recommendations: recommendations of a persisted run, limited to a date range. */
export function registerGetRecommendations(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "GET",
    url: "/v2/recommendations",
    schema: {
      operationId: "getRecommendations",
      summary: "Read persisted RL recommendations",
      description:
        "Recommendations of the persisted run selected by runs_ago (0 = latest), sorted by date then product_id " +
        "and limited to [start_date, end_date].",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      querystring: getRecommendationsQuerySchema,
      response: { 200: recommendationsResponseSchema, ...errorResponses(GET_RECOMMENDATIONS_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.getRecommendations(request.query, requestContext(request)),
  });
}
