import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import { retryWhileBusy } from "../db/database-busy.js";
import type { AttemptOutcome, ClaimedDelivery } from "../repositories/webhooks.js";
import { RETRY_DELAYS_MS, retryDelayMs } from "./retry-schedule.js";
import { sendWebhook } from "./send-webhook.js";
import { signWebhook } from "./signature.js";
import type { ResolveHost } from "./target-address.js";

export interface WebhookDispatcherOptions {
  /** Pause between looks for due deliveries when nothing woke the dispatcher. Default 1000 ms. */
  pollMs?: number;
  /** Deliveries claimed (and sent concurrently) at a time. Default 10. */
  batchSize?: number;
  /** Per attempt. Default 10 s. */
  timeoutMs?: number;
  /** Waits before each retry; default {@link RETRY_DELAYS_MS}. Tests shorten it. */
  retryDelaysMs?: readonly number[];
  /** Default: the system resolver. */
  resolve?: ResolveHost;
}

/** Stops the dispatcher: no new claims, attempts in flight aborted and their claims given back. */
export type StopWebhookDispatcher = () => Promise<void>;

/** A claim outlives the attempt's timeout by this much, so only a dispatcher that died loses it. */
const LEASE_MARGIN_MS = 60_000;

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return [e?.code, e?.message ?? String(error)].filter(Boolean).join(": ").split("\n")[0] ?? "error";
}

/**
 * Delivers recorded webhook events: claims due deliveries (see the repository: never one delivery by two
 * dispatchers at once, across processes), signs and POSTs each, and records delivered (2xx), a retry after the
 * backoff schedule, or failed after the last. Woken at once by events this process records; polls for the rest
 * (other processes' events, retries coming due). Runs in `pricing serve` and in a worker; stops with
 * `ctx.close()` or the returned function.
 */
export function startWebhookDispatcher(
  ctx: ServerContext,
  options: WebhookDispatcherOptions = {},
): StopWebhookDispatcher {
  const pollMs = options.pollMs ?? 1000;
  const batchSize = options.batchSize ?? 10;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const claimer = `dsp_${ulid()}`;
  const repository = ctx.repositories.webhooks;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let wokenWhileRunning = false;

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const now = () => ctx.clock().toISOString();
    const log = {
      delivery_id: delivery.delivery_id,
      endpoint_id: delivery.endpoint_id,
      event_id: delivery.event_id,
    };
    if (delivery.obsolete !== null) {
      await repository.finishAttempt(delivery.delivery_id, claimer, now(), {
        status: "failed",
        httpStatus: null,
        error: delivery.obsolete,
      });
      return;
    }
    const signed = signWebhook({
      secret: delivery.secret,
      id: delivery.event_id,
      timestamp: Math.floor(ctx.clock().getTime() / 1000),
      body: delivery.payload,
    });
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const response = await sendWebhook({
        url: delivery.url,
        headers: signed.headers,
        body: delivery.payload,
        timeoutMs,
        allowPrivate: ctx.config.webhookAllowPrivate,
        signal: stopping.signal,
        ...(options.resolve ? { resolve: options.resolve } : {}),
      });
      httpStatus = response.status;
      if (httpStatus < 200 || httpStatus > 299) error = `HTTP ${httpStatus}`;
    } catch (cause) {
      if (stopping.signal.aborted) {
        await repository.release(delivery.delivery_id, claimer, now());
        return;
      }
      error = describe(cause);
    }
    let outcome: AttemptOutcome;
    if (error === null && httpStatus !== null) {
      outcome = { status: "delivered", httpStatus };
      ctx.logger.info({ ...log, status: httpStatus, attempts: delivery.attempts }, "webhook delivered");
    } else {
      const delay = retryDelayMs(delivery.attempts, delays);
      outcome =
        delay === null
          ? { status: "failed", httpStatus, error: error ?? "error" }
          : {
              status: "pending",
              nextAttemptAt: new Date(ctx.clock().getTime() + delay).toISOString(),
              httpStatus,
              error,
            };
      ctx.logger.warn(
        { ...log, status: httpStatus, error, attempts: delivery.attempts, outcome: outcome.status },
        "webhook attempt failed",
      );
    }
    // The receiver has its answer: recording it outwaits a busy database (another process's import) unless the
    // dispatcher stops, or the claim would run out and the event be sent again.
    await retryWhileBusy(
      () => repository.finishAttempt(delivery.delivery_id, claimer, now(), outcome),
      LEASE_MARGIN_MS,
      stopping.signal,
    );
  }

  async function drain(): Promise<void> {
    while (!stopping.signal.aborted) {
      const now = ctx.clock();
      const claimed = await repository.claimDue({
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS).toISOString(),
        claimer,
        limit: batchSize,
      });
      if (claimed.length === 0) return;
      await Promise.all(
        claimed.map((delivery) =>
          attempt(delivery).catch((error: unknown) => {
            ctx.logger.error({ err: error, delivery_id: delivery.delivery_id }, "webhook attempt crashed");
          }),
        ),
      );
    }
  }

  function run(): void {
    if (stopping.signal.aborted) return;
    clearTimeout(timer);
    if (running !== null) {
      wokenWhileRunning = true;
      return;
    }
    running = drain()
      .catch((error: unknown) => ctx.logger.error({ err: error }, "webhook dispatcher failed; polling on"))
      .finally(() => {
        running = null;
        if (stopping.signal.aborted) return;
        if (wokenWhileRunning) {
          wokenWhileRunning = false;
          run();
        } else {
          timer = setTimeout(run, pollMs);
          timer.unref();
        }
      });
  }

  const unsubscribe = ctx.webhooks.onRecorded(run);
  let stopped: Promise<void> | undefined;
  const stop: StopWebhookDispatcher = () => {
    stopped ??= (async () => {
      stopping.abort();
      clearTimeout(timer);
      unsubscribe();
      untrack();
      await running;
    })();
    return stopped;
  };
  const untrack = ctx.webhooks.track(stop);
  run();
  return stop;
}
