import type { ServerContext } from "../context.js";
import type { Task, TaskAttempt, TaskQueue } from "./task.js";

/**
 * The queue of the embedded mode (SQLite, one process): a job runs here at once, in the background, alongside the
 * others. Each gets one attempt, the last (`final`): the process that would retry it is the one that just failed
 * it, and the caller waiting for it should hear at once; a task's `retry` is for the shared queue. A duplicate `id`
 * is dropped while its job runs.
 */
export function createInProcessQueue(ctx: ServerContext): TaskQueue {
  const stopping = new AbortController();
  const running = new Map<string, Promise<void>>();
  let unnamed = 0;
  const queue: TaskQueue = {
    shared: false,
    async send<P>(task: Task<P>, payload: P, options: { id?: string } = {}) {
      const key = options.id ?? `${task.name}:${unnamed++}`;
      const existing = running.get(key);
      if (existing) return { queued: false, settled: existing };
      const attempt: TaskAttempt = {
        ctx,
        jobId: key,
        final: true,
        retryCount: 0,
        queuedAt: ctx.clock(),
        signal: stopping.signal,
        queue,
      };
      const settled = runOnce(task, payload, attempt).finally(() => running.delete(key));
      running.set(key, settled);
      return { queued: true, settled };
    },
    async sendMany(task, jobs) {
      for (const job of jobs) await queue.send(task, job.payload, { id: job.id });
    },
    async close() {
      stopping.abort(new Error("the server is shutting down"));
      await Promise.allSettled([...running.values()]);
    },
  };
  return queue;
}

/** Runs one attempt and logs how it ended; never rejects (nobody awaits a background job's failure). */
async function runOnce<P>(task: Task<P>, payload: P, attempt: TaskAttempt): Promise<void> {
  const logger = attempt.ctx.logger;
  try {
    const outcome = await task.run(task.payload.parse(payload), attempt);
    if (outcome.status === "retry") logger.warn({ task: task.name, reason: outcome.reason }, "job failed");
  } catch (error) {
    logger.error({ err: error, task: task.name }, "job failed");
  }
}
