import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { BODY_ERROR_CODES, COMMON_ERROR_CODES, errorResponses } from "../errors.js";
import { requestContext } from "../request-context.js";
import { tokenRequestSchema, tokenResponseSchema } from "../schemas/auth.js";
import type { RouteDeps } from "./route-deps.js";

export type { TokenRequest, TokenResponse } from "../schemas/auth.js";

export const AUTH_TOKEN_ERROR_CODES = [
  ...COMMON_ERROR_CODES,
  ...BODY_ERROR_CODES,
  "invalid_credentials",
] as const;

/** POST /auth/token: exchange a key pair for a 15-minute bearer JWT. */
export function registerAuthToken(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "POST",
    url: "/auth/token",
    bodyLimit: deps.bodyLimit,
    schema: {
      operationId: "exchangeToken",
      summary: "Exchange keys for a token",
      description:
        "Exchanges the partner's long-lived key pair for a bearer JWT valid 900 seconds. Unknown key, wrong " +
        "secret, superseded key and disabled partner all give the same 401 invalid_credentials. Limited per " +
        "access key and per client address.",
      tags: ["auth"],
      security: [],
      hide: deps.hidden,
      body: tokenRequestSchema,
      response: { 200: tokenResponseSchema, ...errorResponses(AUTH_TOKEN_ERROR_CODES) },
    },
    onRequest: deps.tokenLimits.perAddress,
    preHandler: deps.tokenLimits.perKey,
    handler: async (request, reply) => {
      // RFC 6749 §5.1: a response carrying a token must not be stored by any cache.
      reply.header("cache-control", "no-store");
      reply.header("pragma", "no-cache");
      return deps.auth.exchangeToken(request.body, requestContext(request));
    },
  });
}
