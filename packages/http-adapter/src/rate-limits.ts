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
  /** Data-endpoint requests per partner, the expensive operations apart. */
  dataPerPartner: windowSchema.default({ max: 600, windowMs: 60_000 }),
  /** POST /v2/recommendations/compute per partner. */
  computePerPartner: windowSchema.default({ max: 60, windowMs: 60_000 }),
  /** POST /v2/model/train per partner. */
  trainPerPartner: windowSchema.default({ max: 10, windowMs: 3_600_000 }),
  /** Compute and train requests in flight at once, per partner and on the whole server. */
  expensiveConcurrency: z
    .object({
      perPartner: z.number().int().positive().default(2),
      total: z.number().int().positive().default(4),
    })
    .prefault({}),
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
