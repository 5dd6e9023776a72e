import { type AppOptions, type RunningServer, startServer } from "./app.js";
import type { Config } from "./config.js";
import type { BatchSchedule } from "./jobs/batch-schedule.js";
import { startJobs } from "./jobs/start-jobs.js";
import { startWebhookDispatcher } from "./webhooks/dispatcher.js";

export interface ServingWithBatch {
  /** Its `ctx` is the one context the routes and the jobs share (policy cache, training slots, queue). */
  server: RunningServer;
  schedule: BatchSchedule;
  close(): Promise<void>;
}

/**
 * The API server plus its jobs over the same context: the embedded worker and the nightly schedule (in-process
 * on SQLite, pg-boss on PostgreSQL), or on PostgreSQL with `pricing.workers` 0 only the queue the API hands
 * trainings to, and the webhook dispatcher. `close` stops the dispatcher and the schedule and waits for a running
 * batch to record where it stopped, then closes the server, which aborts running trainings (nothing is committed)
 * before it waits for requests, then the queue.
 */
export async function startServerWithBatch(
  config: Config,
  options: AppOptions = {},
): Promise<ServingWithBatch> {
  const server = await startServer(config, options);
  let schedule: BatchSchedule;
  try {
    schedule = await startJobs(server.ctx, { concurrency: config.pricing.workers });
  } catch (error) {
    await server.close();
    throw error;
  }
  const stopWebhooks = startWebhookDispatcher(server.ctx);
  return {
    server,
    schedule,
    async close() {
      // The batch records its outcomes (interrupted ones with the reason) while the database is still open.
      const drained = schedule.stop();
      server.ctx.training.abortAll();
      await drained;
      await stopWebhooks();
      await server.close();
    },
  };
}
