import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { DATA_ROUTE_ERROR_CODES, errorResponses } from "../errors.js";
import { requestContext } from "../request-context.js";
import { listRunsQuerySchema, listRunsResponseSchema } from "../schemas/runs.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { ListRunsQuery, ListRunsResponse } from "../schemas/runs.js";

export const LIST_RUNS_ERROR_CODES = DATA_ROUTE_ERROR_CODES;

/** GET /v2/runs: persisted run metadata, newest first. */
export function registerListRuns(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "GET",
    config: { etag: true },
    url: "/v2/runs",
    schema: {
      operationId: "listRuns",
      summary: "List persisted RL runs",
      description: "Run metadata newest first, each with the runs_ago offset that reads it.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      querystring: listRunsQuerySchema,
      response: { 200: listRunsResponseSchema, ...errorResponses(LIST_RUNS_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.listRuns(request.query, requestContext(request)),
  });
}
