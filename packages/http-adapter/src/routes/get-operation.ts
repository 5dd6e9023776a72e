import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { COMMON_ERROR_CODES, errorResponses } from "../errors.js";
import { requestContext } from "../request-context.js";
import { operationParamsSchema, operationSchema } from "../schemas/operations.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { Operation, OperationParams } from "../schemas/operations.js";

export const GET_OPERATION_ERROR_CODES = [
  ...COMMON_ERROR_CODES,
  "invalid_token",
  "token_expired",
  "operation_not_found",
] as const;

/** GET /v2/operations/{operation_id}: an asynchronous training's state and, once done, its result or error. */
export function registerGetOperation(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "GET",
    url: "/v2/operations/:operation_id",
    // The request names no company: the service checks the operation's company against the caller.
    config: { companyFromService: true },
    schema: {
      operationId: "getOperation",
      summary: "Follow an asynchronous training",
      description:
        "The operation a `POST /v2/model/train` with `Prefer: respond-async` started: queued, running (with " +
        "progress), then succeeded (result: the train response) or failed (error). An operation of a company " +
        "that is not the caller's is the same 404 operation_not_found as an unknown id.",
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      params: operationParamsSchema,
      querystring: z.strictObject({}),
      response: { 200: operationSchema, ...errorResponses(GET_OPERATION_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.getOperation(request.params, requestContext(request)),
  });
}
