import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { ApiError } from "./errors.js";

const windowSchema = z.object({
  max: z.number().int().positive(),
  windowMs: z.number().int().positive(),
});

/** Limits per window; each counted separately. */
export const rateLimitsSchema = z.object({
  /** Token exchanges per access key. */
  tokenPerKey: windowSchema.default({ max: 30, windowMs: 60_000 }),
  /** Token exchanges per client address. */
  tokenPerAddress: windowSchema.default({ max: 120, windowMs: 60_000 }),
  /** Data-endpoint requests per partner. */
  dataPerPartner: windowSchema.default({ max: 600, windowMs: 60_000 }),
});

export type RateLimits = z.output<typeof rateLimitsSchema>;
export type RateLimitsInput = z.input<typeof rateLimitsSchema>;

export type RateLimitCheck = (request: FastifyRequest) => Promise<void>;

/**
 * A limiter as a plain async check. @fastify/rate-limit's own route hook skips every limiter after the first on a
 * request, and the token route needs two (per address before the body, per key after it), so we drive its store.
 */
export function createRateLimitCheck(
  app: FastifyInstance,
  limit: { max: number; windowMs: number },
  keyOf: (request: FastifyRequest) => string | undefined,
): RateLimitCheck {
  const limiter = app.createRateLimit({
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => keyOf(request) ?? "",
  });
  return async (request) => {
    if (keyOf(request) === undefined) return;
    const result = await limiter(request);
    if (result.isAllowed || !result.isExceeded) return;
    throw new ApiError("rate_limited", undefined, {
      headers: { "retry-after": String(Math.max(1, result.ttlInSeconds)) },
    });
  };
}
