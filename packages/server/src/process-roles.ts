import type { DestinationStream } from "pino";
import { type AppOptions, type RunningServer, startServer } from "./app.js";
import type { Config } from "./config.js";
import { createServerContext, type ServerContext, type ServerContextOptions } from "./context.js";
import { pingDatabase } from "./db/database.js";
import type { BatchSchedule } from "./jobs/batch-schedule.js";
import { startJobs } from "./jobs/start-jobs.js";
import { createLogger } from "./logger.js";
import { type MetricsListener, startMetricsListener } from "./metrics/metrics-listener.js";
import { startWebhookDispatcher } from "./webhooks/dispatcher.js";

/**
 * What a long-running process does. `both` (`pricing serve`): the API and its embedded worker. `api` (`pricing
 * serve` with `pricing.workers` 0, PostgreSQL only): the API, queueing jobs for workers. `worker` (`pricing
 * worker`, PostgreSQL only): jobs from the shared queue, no API. Every role logs through `createLogger`, and
 * every role delivers webhooks (deliveries are claimed row by row, so processes send them side by side).
 */
export type ProcessRole = "api" | "worker" | "both";

interface RunningRole {
  schedule: BatchSchedule;
  /**
   * Stops the schedule and aborts running trainings (nothing is committed), waits for a running batch to record
   * where it stopped (while the database is still open), then stops the webhook dispatcher.
   */
  stop(): Promise<void>;
}

/** Starts a role's jobs (`concurrency` at once; none for `api`) and webhook deliveries on `ctx`. */
async function startRole(ctx: ServerContext, role: ProcessRole, concurrency: number): Promise<RunningRole> {
  const schedule = await startJobs(ctx, { concurrency: role === "api" ? 0 : concurrency });
  const stopWebhooks = startWebhookDispatcher(ctx);
  return {
    schedule,
    async stop() {
      const drained = schedule.stop();
      ctx.training.abortAll();
      await drained;
      await stopWebhooks();
    },
  };
}

export interface ServingWithBatch {
  /** Its `ctx` is the one context the routes and the jobs share (policy cache, training slots, queue). */
  server: RunningServer;
  schedule: BatchSchedule;
  close(): Promise<void>;
}

/**
 * The `both` role, or `api` on PostgreSQL with `pricing.workers` 0: the API server plus its jobs over the same
 * context (the embedded worker and the nightly schedule, in-process on SQLite, pg-boss on PostgreSQL; for `api`
 * only the queue the API hands trainings to) and the webhook dispatcher. `close` stops the role, then closes the
 * server, which waits for requests, then the queue.
 */
export async function startServerWithBatch(
  config: Config,
  options: AppOptions = {},
): Promise<ServingWithBatch> {
  const server = await startServer(config, options);
  let running: RunningRole;
  try {
    const workers = config.pricing.workers;
    running = await startRole(server.ctx, workers === 0 ? "api" : "both", workers);
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    server,
    schedule: running.schedule,
    async close() {
      await running.stop();
      await server.close();
    },
  };
}

export interface WorkerOptions extends Omit<ServerContextOptions, "logger"> {
  /** Serve `/healthz` and `/metrics` on this port (on `config.host`); 0 picks one. */
  port?: number;
  /** Where JSON log lines go (default stdout); tests capture them here. */
  logStream?: DestinationStream;
}

export interface RunningWorker {
  ctx: ServerContext;
  schedule: BatchSchedule;
  metricsUrl: string | null;
  close(): Promise<void>;
}

/**
 * The `worker` role (PostgreSQL): `pricing.workerConcurrency` jobs at once from the shared queue, its share of the
 * nightly schedule and webhook deliveries, and `/healthz` and `/metrics` when a port is given.
 */
export async function startWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  const { port, logStream, ...contextOptions } = options;
  const ctx = await createServerContext(config, {
    ...contextOptions,
    logger: createLogger(config, logStream),
  });
  let running: RunningRole | undefined;
  let listener: MetricsListener | undefined;
  try {
    running = await startRole(ctx, "worker", config.pricing.workerConcurrency);
    if (port !== undefined) {
      listener = await startMetricsListener(ctx.metrics.registry, config.host, port, {
        health: () => pingDatabase(ctx.db),
      });
    }
  } catch (error) {
    await running?.stop();
    await ctx.close();
    throw error;
  }
  const role = running;
  return {
    ctx,
    schedule: role.schedule,
    metricsUrl: listener?.url ?? null,
    async close() {
      try {
        await role.stop();
        await listener?.close();
      } finally {
        await ctx.close();
      }
    },
  };
}
