import type { FastifyReply, FastifyRequest } from "fastify";
import { ClientGoneError } from "./client-gone.js";
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
  const abandoned =
    operation === "compute"
      ? "a compute whose client goes away is cancelled"
      : "a training whose client goes away still runs to its end (retry with the same Idempotency-Key for its answer)";
  return (
    `Limited per partner to ${windowText(window)} (counted apart from the other calls), and to ${perPartner} ` +
    `compute or train requests in flight per partner (${total} on the server); beyond either, 429 rate_limited ` +
    `with Retry-After. A request holds its slot until its answer is sent or its client goes away (a client ` +
    `timeout, a closed connection), whichever comes first; ${abandoned}.`
  );
}

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Set on an expensive request once it holds its slot: aborted when the client goes away (connection closed or
     * reset, a client timeout) before the whole answer was sent. Null elsewhere.
     */
    abandoned: AbortSignal | null;
  }
}

/**
 * Caps the expensive requests in flight, per partner and in total, so a partner computing in a loop cannot take
 * the CPU from the others. A slot is taken once the request is authorized and valid, and given back exactly once
 * when its response ends however it ends: answered, failed, or the connection closed first (a client timeout, a
 * reset, the server closing it). The raw response's `close` is the one event every ending emits; `onResponse`,
 * which Fastify runs only on a response that finished, would miss the client that gave up and leak its slot.
 * The client's going away also aborts `request.abandoned`, so the service can drop work nobody waits for.
 * One cap for the whole plugin: its `preHandler` is added to both copies of the `/v2` routes, which share it.
 */
export function concurrencyCap(
  cap: RateLimits["expensiveConcurrency"],
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const byPartner = new Map<string, number>();
  let total = 0;

  return async (request, reply) => {
    const partnerId = request.principal?.partnerId;
    if (request.routeOptions.config.expensive === undefined || partnerId === undefined) return;
    const response = reply.raw;
    // Gone while it was authorized and validated: its `close` has fired already, so no slot is taken at all.
    if (response.destroyed) throw new ClientGoneError();
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
    const client = new AbortController();
    request.abandoned = client.signal;
    let finished = false;
    response.once("finish", () => {
      finished = true;
    });
    response.once("close", () => {
      total -= 1;
      const left = (byPartner.get(partnerId) ?? 1) - 1;
      if (left === 0) byPartner.delete(partnerId);
      else byPartner.set(partnerId, left);
      if (finished) return;
      request.log.info("client closed the connection before the answer; its in-flight slot is free");
      client.abort(new ClientGoneError());
    });
  };
}
/** The per-partner rate limit of a request: its expensive operation's own, else the data calls'. */
export function partnerLimitOf(checks: {
  data: RateLimitCheck;
  compute: RateLimitCheck;
  train: RateLimitCheck;
}): RateLimitCheck {
  return (request) => checks[request.routeOptions.config.expensive ?? "data"](request);
}
