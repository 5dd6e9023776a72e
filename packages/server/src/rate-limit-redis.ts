import type { SharedRateLimitStore } from "@pricing/http-adapter";
import type { Logger } from "pino";
import type { Config } from "./config.js";

/** How long a rate-limit check waits for Redis before the request goes through unlimited. */
const COMMAND_TIMEOUT_MS = 500;

/**
 * The shared store of the rate-limit counters when `PRICING_REDIS_URL` is set, else undefined (each process counts
 * in memory). A Redis that is down, at start or later, never fails a request: commands fail at once instead of
 * queueing (no offline queue, a short command timeout), the adapter lets the request through and logs a warning,
 * and the client keeps reconnecting in the background.
 */
export async function openRateLimitStore(
  config: Config,
  logger: Logger,
): Promise<{ store: SharedRateLimitStore | undefined; close: () => Promise<void> }> {
  if (!config.redisUrl) return { store: undefined, close: async () => undefined };
  const { Redis } = await import("ioredis");
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let down = false;
  redis.on("error", (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(
      { err: error },
      "Redis of the rate limits unreachable: limits are not enforced until it is back",
    );
  });
  redis.on("ready", () => {
    if (down) logger.info("Redis of the rate limits reachable again");
    down = false;
  });
  // A Redis that is down at start is no reason to refuse to serve: the client keeps reconnecting.
  await redis.connect().catch(() => undefined);
  return {
    store: { redis, nameSpace: "pricing-rate-limit:" },
    async close() {
      redis.disconnect();
    },
  };
}
