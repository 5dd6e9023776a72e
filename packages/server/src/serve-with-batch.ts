import { type AppOptions, type RunningServer, startServer } from "./app.js";
import type { Config } from "./config.js";
import { type BatchSchedule, startBatchSchedule } from "./jobs/batch-schedule.js";
import { startWebhookDispatcher } from "./webhooks/dispatcher.js";

export interface ServingWithBatch {
  /** Its `ctx` is the one context the routes and the schedule share (policy cache, training slots). */
  server: RunningServer;
  schedule: BatchSchedule;
  close(): Promise<void>;
}

/**
 * The API server plus the in-process nightly schedule and webhook dispatcher over the same context. `close` stops
 * the schedule and the dispatcher, then closes the server, which aborts running trainings (nothing is committed)
 * before it waits for requests.
 */
export async function startServerWithBatch(
  config: Config,
  options: AppOptions = {},
): Promise<ServingWithBatch> {
  const server = await startServer(config, options);
  const schedule = startBatchSchedule(server.ctx);
  const stopWebhooks = startWebhookDispatcher(server.ctx);
  return {
    server,
    schedule,
    async close() {
      schedule.stop();
      await stopWebhooks();
      await server.close();
    },
  };
}
