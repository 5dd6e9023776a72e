import type { z } from "zod";
import type { PricingSettings } from "../config.js";
import type { ServerContext } from "../context.js";

/** How a queue that retries (pg-boss) retries a task's failed attempts. */
export interface TaskRetry {
  /** Attempts after the first. */
  limit: number;
  /** Seconds before the first retry; doubled for each further one with `backoff`. */
  delaySeconds: number;
  backoff: boolean;
}

/** The operator's retry settings (`PRICING_JOB_RETRY_LIMIT`, `PRICING_JOB_RETRY_DELAY_SECONDS`), doubled each time. */
export function configuredRetry(settings: PricingSettings): TaskRetry {
  return { limit: settings.jobRetryLimit, delaySeconds: settings.jobRetryDelaySeconds, backoff: true };
}

/**
 * What one attempt of a task came to: the queue decides from this alone whether another attempt follows (a task
 * never signals it with an exception or an HTTP code). `retry` on the last attempt ends the job; the task has
 * recorded what its callers need to know (a failed operation, a failed batch outcome) before it answers.
 */
export type TaskOutcome = { status: "done" } | { status: "retry"; reason: string };

export const DONE: TaskOutcome = { status: "done" };

/** What an attempt is handed besides its payload. */
export interface TaskAttempt {
  ctx: ServerContext;
  /** No attempt follows this one (the queue's last retry, or a queue that never retries). */
  final: boolean;
  /** The queue's id of the job, for the log. */
  jobId: string;
  /** Attempts before this one. */
  retryCount: number;
  /** When the job was queued. */
  queuedAt: Date;
  /** Aborted when the process stops taking jobs. */
  signal: AbortSignal;
  /** The queue that runs this attempt, for a task that queues others (the nightly fan-out). */
  queue: TaskQueue;
}

/**
 * A job, declared in one file under `jobs/tasks/` with everything about it: its payload schema (checked before each
 * attempt: a job may outlive a deploy that changed it), its retries and how many run at once per process. The same
 * `run` is called by every queue; what differs between them is only who calls it. Idempotent: a queue may run it
 * twice (an attempt that expired while it still ran).
 */
export interface Task<P> {
  name: string;
  payload: z.ZodType<P>;
  retry(settings: PricingSettings): TaskRetry;
  /** `each-worker`: one runner per unit of the process's concurrency; `one`: a single runner per process. */
  runners: "each-worker" | "one";
  run(payload: P, attempt: TaskAttempt): Promise<TaskOutcome>;
}

export interface SendOptions {
  /**
   * The job's id: a job with this id already queued, running or done is kept and this one dropped, across
   * processes (the nightly fan-out's one job per company and firing).
   */
  id?: string;
}

export interface Sent {
  /** False: a job with the same `id` was there already, and this one was dropped. */
  queued: boolean;
  settled?: Promise<void>;
}

/** A queue of tasks: pg-boss (`pg-boss-queue.ts`) or this process (`in-process-queue.ts`). */
export interface TaskQueue {
  /** Tasks sent here may run in another process, and a failed attempt is retried (`Task.retry`). */
  readonly shared: boolean;
  /**
   * Queues one job. `settled` (in-process only) resolves when its attempt has ended, for a caller that waits for
   * it without polling.
   */
  send<P>(task: Task<P>, payload: P, options?: SendOptions): Promise<Sent>;
  /** Queues many jobs of one task at once. */
  sendMany<P>(task: Task<P>, jobs: readonly { payload: P; id: string }[]): Promise<void>;
  /** Stops taking jobs and waits for the running ones (which `ctx.training.abortAll` ends first on shutdown). */
  close(): Promise<void>;
}
