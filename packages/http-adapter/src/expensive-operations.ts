import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError } from "./errors.js";
import type { RateLimitCheck, RateLimits } from "./rate-limits.js";

/** Operations that run the engine (seconds to minutes of CPU) and so have limits of their own. */
export type ExpensiveOperation = "compute" | "train";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Set on the routes of an expensive operation: its own rate limit and the concurrency cap apply. */
    expensive?: ExpensiveOperation;
  }
}

/** Seconds a client is told to wait when every slot is taken: an operation takes seconds at least. */
const BUSY_RETRY_AFTER_SECONDS = 5;

function windowText(limit: { max: number; windowMs: number }): string {
  const minutes = limit.windowMs / 60_000;
  const per = Number.isInteger(minutes)
    ? minutes === 1
      ? "minute"
      : `${minutes} minutes`
    : `${limit.windowMs} ms`;
  return `${limit.max} per ${per}`;
}

/** The limits of one expensive operation as the OpenAPI description states them. */
export function describeExpensiveLimits(operation: ExpensiveOperation, limits: RateLimits): string {
  const window = operation === "compute" ? limits.computePerPartner : limits.trainPerPartner;
  const { perPartner, total } = limits.expensiveConcurrency;
  return (
    `Limited per partner to ${windowText(window)} (counted apart from the other calls), and to ${perPartner} ` +
    `compute or train requests in flight per partner (${total} on the server); beyond either, 429 rate_limited ` +
    "with Retry-After."
  );
}

/**
 * Caps the expensive requests in flight, per partner and in total, so a partner computing in a loop cannot take
 * the CPU from the others. A slot is taken once the request is authorized and valid, and given back when its
 * response ends, however it ends.
 */
export function installConcurrencyCap(app: FastifyInstance, cap: RateLimits["expensiveConcurrency"]): void {
  const byPartner = new Map<string, number>();
  let total = 0;
  const holding = new WeakMap<FastifyRequest, string>();

  app.addHook("preHandler", async (request) => {
    const partnerId = request.principal?.partnerId;
    if (request.routeOptions.config.expensive === undefined || partnerId === undefined) return;
    const mine = byPartner.get(partnerId) ?? 0;
    if (mine >= cap.perPartner || total >= cap.total) {
      throw new ApiError(
        "rate_limited",
        "Too many compute or train requests in flight; retry when one has finished.",
        { headers: { "retry-after": String(BUSY_RETRY_AFTER_SECONDS) } },
      );
    }
    byPartner.set(partnerId, mine + 1);
    total += 1;
    holding.set(request, partnerId);
  });
  app.addHook("onResponse", async (request) => {
    const partnerId = holding.get(request);
    if (partnerId === undefined) return;
    holding.delete(request);
    total -= 1;
    const left = (byPartner.get(partnerId) ?? 1) - 1;
    if (left === 0) byPartner.delete(partnerId);
    else byPartner.set(partnerId, left);
  });
}

/** The per-partner rate limit of a request: its expensive operation's own, else the data calls'. */
export function partnerLimitOf(checks: {
  data: RateLimitCheck;
  compute: RateLimitCheck;
  train: RateLimitCheck;
}): RateLimitCheck {
  return (request) => checks[request.routeOptions.config.expensive ?? "data"](request);
}
