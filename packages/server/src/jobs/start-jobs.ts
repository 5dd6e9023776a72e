import { Cron } from "croner";
import type { ServerContext } from "../context.js";
import { ALL_TASKS } from "./all-tasks.js";
import { type BatchSchedule, startBatchSchedule } from "./batch-schedule.js";
import { createInProcessQueue } from "./in-process-queue.js";
import { jobsOn } from "./task-jobs.js";

export interface JobsRole {
  /** Jobs this process runs at once; 0: it only queues them (an API-only replica on PostgreSQL). */
  concurrency: number;
}

/** The schedule as pg-boss runs it: planned times only; the firing happens in whichever worker sees it first. */
function sharedSchedule(ctx: ServerContext, running: boolean): BatchSchedule {
  const cron = new Cron(ctx.config.pricing.batchCron, { timezone: "UTC", paused: true });
  return {
    nextRun: () => (running ? cron.nextRun() : null),
    caughtUp: Promise.resolve(null),
    stop: () => {
      cron.stop();
      return Promise.resolve();
    },
  };
}

/**
 * Starts this process's share of the jobs. On PostgreSQL: jobs go to pg-boss, and with `concurrency > 0` this
 * process also works them and takes part in the shared nightly schedule. On SQLite (one machine): jobs run in this
 * process's queue and the croner schedule runs here; an API-only role makes no sense there.
 */
export async function startJobs(ctx: ServerContext, role: JobsRole): Promise<BatchSchedule> {
  if (ctx.config.databaseUrl === undefined) {
    if (role.concurrency === 0) {
      throw new Error(
        "an API-only replica (--workers 0) needs PRICING_DATABASE_URL (PostgreSQL): on SQLite the server runs its own jobs",
      );
    }
    ctx.jobs = jobsOn(createInProcessQueue(ctx));
    return startBatchSchedule(ctx);
  }
  const { startPgBossQueue } = await import("./pg-boss-queue.js");
  ctx.jobs = jobsOn(await startPgBossQueue(ctx, role, ALL_TASKS));
  return sharedSchedule(ctx, role.concurrency > 0);
}
