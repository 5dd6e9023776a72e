import type { FastifyRequest } from "fastify";
import type { Principal, RequestContext } from "./services.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the bearer check on data routes; null elsewhere. */
    principal: Principal | null;
  }
}

export function requestContext(request: FastifyRequest): RequestContext {
  const ctx: RequestContext = { requestId: request.id, log: request.log, ip: request.ip };
  if (request.principal) ctx.principal = request.principal;
  if (request.abandoned) ctx.signal = request.abandoned;
  return ctx;
}
