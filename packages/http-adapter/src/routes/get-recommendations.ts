import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { codedRepresentation } from "../content-coding.js";
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
    config: { etag: true, contentCoding: true },
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
    handler: async (request, reply) => {
      const fast = deps.pricing.getRecommendationsJson;
      if (fast) {
        // A Buffer payload bypasses the response serializer: the service vouches for the bytes and their tags.
        const body = await fast.call(deps.pricing, request.query, requestContext(request));
        // The typed reply only accepts the response object; the raw bytes go through the untyped one.
        const raw = reply as unknown as FastifyReply;
        const bytes = codedRepresentation(request, raw, body);
        return raw.type("application/json; charset=utf-8").send(bytes);
      }
      return deps.pricing.getRecommendations(request.query, requestContext(request));
    },
  });
}
