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
 * The part of an ioredis client @fastify/rate-limit's Redis store uses (it defines its Lua scripts as commands).
 * The host owns the client: it connects and quits it.
 */
export interface RateLimitRedis {
  defineCommand(name: string, definition: { numberOfKeys?: number; lua: string }): void;
}

/** Counters shared by every process using the same Redis (and `nameSpace`), instead of each process's memory. */
export interface SharedRateLimitStore {
  redis: RateLimitRedis;
  /** Prefix of the counters' keys; default `pricing-rate-limit:`. */
  nameSpace?: string;
}

/** What a check does when the counters' store fails: lets the request through, and says so in the log. */
export type StoreFailure = (request: FastifyRequest, error: unknown) => void;
/** What a check does when the store answers: ends an outage. */
export interface StoreHealth {
  failed: StoreFailure;
  answered(): void;
}

/**
 * One warning when the store starts failing and then one per 1,000 requests let through: a log line per request
 * would flood the log exactly when the operator needs to read it.
 */
export function createStoreHealth(): StoreHealth {
  let unlimited = 0;
  return {
    failed(request, error) {
      if (unlimited % 1000 === 0) {
        request.log.warn(
          { err: error, unlimited_requests: unlimited + 1 },
          "rate-limit store unreachable: requests pass unlimited until it answers again",
        );
      }
      unlimited += 1;
    },
    answered() {
      unlimited = 0;
    },
  };
}

/** Makes the check of one limit, counting requests by the key `keyOf` gives (undefined: not counted). */
export type RateLimiterFactory = (
  limit: { max: number; windowMs: number },
  keyOf: (request: FastifyRequest) => string | undefined,
  health: StoreHealth,
) => RateLimitCheck;

/** The 429 of a request over its limit, with the seconds until its window ends. */
function rateLimited(ttlMs: number): ApiError {
  return new ApiError("rate_limited", undefined, {
    headers: { "retry-after": String(Math.max(1, Math.ceil(ttlMs / 1000))) },
  });
}

/** Keys one limit counts in memory: a client's or partner's; beyond it the oldest window is dropped. */
const MEMORY_KEYS = 5000;

/**
 * One limit's counters in this process's memory: a fixed window per key from its first request, as
 * @fastify/rate-limit's LocalStore counts them (the same answers). Counted here rather than through the plugin,
 * whose limiter computed the key a second time and cost two promises and an LRU reordering per request: ~7 µs of
 * the ~105 a cached read of GET /v2/recommendations cost in all.
 */
function memoryLimit(limit: { max: number; windowMs: number }): (key: string) => number | undefined {
  const windows = new Map<string, { hits: number; startMs: number }>();
  return (key) => {
    const now = Date.now();
    let window = windows.get(key);
    if (window === undefined || window.startMs + limit.windowMs <= now) {
      windows.delete(key);
      if (windows.size >= MEMORY_KEYS) {
        const oldest = windows.keys().next();
        if (!oldest.done) windows.delete(oldest.value);
      }
      window = { hits: 0, startMs: now };
      windows.set(key, window);
    }
    window.hits += 1;
    return window.hits > limit.max ? limit.windowMs - (now - window.startMs) : undefined;
  };
}

/**
 * How the API's limits count: in this process's memory, or, given a shared store, in Redis through
 * @fastify/rate-limit's store (registered here only then), shared by every process on it. A check is a plain async
 * function: the plugin's own route hook skips every limiter after the first on a request, and the token route needs
 * two (per address before the body, per key after it). When the shared store fails (a Redis that is down), the
 * request goes through unlimited and a warning is logged: an outage of the counters must not become an outage of
 * the API.
 */
export async function installRateLimits(
  app: FastifyInstance,
  store: SharedRateLimitStore | undefined,
): Promise<RateLimiterFactory> {
  if (store === undefined) {
    return (limit, keyOf) => {
      const count = memoryLimit(limit);
      return async (request) => {
        const key = keyOf(request);
        if (key === undefined) return;
        const overMs = count(key);
        if (overMs !== undefined) throw rateLimited(overMs);
      };
    };
  }
  // The Fastify plugin loads here rather than at module load, so that importing the adapter stays cheap.
  const { default: rateLimit } = await import("@fastify/rate-limit");
  await app.register(rateLimit, {
    global: false,
    redis: store.redis,
    nameSpace: store.nameSpace ?? "pricing-rate-limit:",
  });
  return (limit, keyOf, health) => {
    const limiter = app.createRateLimit({
      max: limit.max,
      timeWindow: limit.windowMs,
      keyGenerator: (request) => keyOf(request) ?? "",
    });
    return async (request) => {
      if (keyOf(request) === undefined) return;
      let result: Awaited<ReturnType<typeof limiter>>;
      try {
        result = await limiter(request);
      } catch (error) {
        health.failed(request, error);
        return;
      }
      health.answered();
      if (result.isAllowed || !result.isExceeded) return;
      throw rateLimited(result.ttlInSeconds * 1000);
    };
  };
}
