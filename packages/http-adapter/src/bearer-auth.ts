import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError } from "./errors.js";
import type { RateLimitCheck } from "./rate-limits.js";
import type { AuthService } from "./services.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Set on a route whose request names no company (an operation id): its service checks the caller's access. */
    companyFromService?: boolean;
  }
}

// The scheme name is case-insensitive (RFC 7235 §2.1); the token is not.
const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i;

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = typeof header === "string" ? BEARER.exec(header.trim()) : null;
  if (!match?.[1])
    throw new ApiError("invalid_token", "A bearer token is required: Authorization: Bearer <token>.");
  return match[1];
}

function companyIdOf(request: FastifyRequest): string | undefined {
  for (const source of [request.body, request.query]) {
    if (typeof source === "object" && source !== null && "company_id" in source) {
      const value = (source as { company_id: unknown }).company_id;
      if (typeof value === "string") return value;
    }
  }
  return undefined;
}

/**
 * Bearer check in `onRequest` (before any body is read), then the per-partner rate limit, then, once the request
 * is validated, the company check. Unknown and unmapped companies get the same 404 so existence never leaks.
 */
export function installBearerAuth(
  app: FastifyInstance,
  auth: AuthService,
  partnerLimit: RateLimitCheck,
): void {
  app.addHook("onRequest", async (request) => {
    request.principal = await auth.verifyToken(bearerToken(request));
    await partnerLimit(request);
  });
  app.addHook("preHandler", async (request) => {
    if (request.routeOptions.config.companyFromService === true) return;
    const principal = request.principal;
    const companyId = companyIdOf(request);
    if (!principal || companyId === undefined) throw new ApiError("company_not_found");
    if (!(await auth.isCompanyAccessible(principal.partnerId, companyId)))
      throw new ApiError("company_not_found");
  });
}
