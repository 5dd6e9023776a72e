import PgBoss from "pg-boss";
import type { ServerContext } from "../context.js";
import { withSetupLock } from "../db/advisory-locks.js";
import { catchUpOnQueue } from "./batch-catch-up.js";
import type { Task, TaskAttempt, TaskQueue } from "./task.js";
import { nightlyFanOutTask } from "./tasks/nightly-fan-out.js";

export interface PgBossRole {
  /** Jobs this process runs at once; 0: it only queues (an API-only replica), runs no schedule and no sweep. */
  concurrency: number;
}

async function ensureQueue(boss: PgBoss, name: string, options: PgBoss.Queue): Promise<void> {
  if (await boss.getQueue(name)) {
    await boss.updateQueue(name, options);
    return;
  }
  try {
    await boss.createQueue(name, options);
  } catch (error) {
    // Two processes starting together: the other one created it.
    if (!(await boss.getQueue(name))) throw error;
  }
}

/**
 * The queue of the many-process mode: pg-boss 10 on the database of `PRICING_DATABASE_URL`, in its own schema
 * (`PRICING_JOB_SCHEMA`), one pg-boss queue per task of `tasks`, retried as the task declares. Each job expires
 * after `jobExpireSeconds` (pg-boss 10 has no heartbeat): a worker that dies mid-job leaves it active until a
 * worker's maintenance sweep (every `jobMaintenanceSeconds`) fails it, and it is retried by whichever worker polls
 * first. The nightly cron is a pg-boss schedule of the fan-out task: it fires once across all processes. pg-boss
 * skips a firing no worker was up for: each working process, as it starts, queues what the latest firing left
 * unfinished (`catchUpOnQueue`). A job stopped by a shutdown is handed back for a retry.
 */
export async function startPgBossQueue(
  ctx: ServerContext,
  role: PgBossRole,
  tasks: readonly Task<unknown>[],
): Promise<TaskQueue> {
  const settings = ctx.config.pricing;
  const working = role.concurrency > 0;
  const boss = new PgBoss({
    connectionString: ctx.config.databaseUrl,
    schema: settings.jobSchema,
    application_name: working ? "pricing-worker" : "pricing-api",
    max: working ? 2 + role.concurrency : 2,
    supervise: working,
    schedule: working,
    maintenanceIntervalSeconds: settings.jobMaintenanceSeconds,
    // Cron firings are looked for this often (default 30 s): a minute-grained cron fires within seconds.
    cronMonitorIntervalSeconds: 5,
  });
  boss.on("error", (error) => ctx.logger.error({ err: error }, "job queue error"));
  // Aborted on close: a job that fails while the worker stops is handed back.
  const stopping = new AbortController();
  // Processes starting together would otherwise create pg-boss's tables and the queues' partitions at once, which
  // PostgreSQL can answer with a deadlock: one at a time.
  await withSetupLock(ctx.db, settings.jobSchema, async () => {
    await boss.start();
    for (const task of tasks) {
      const retry = task.retry(settings);
      await ensureQueue(boss, task.name, {
        name: task.name,
        retryLimit: retry.limit,
        retryDelay: retry.delaySeconds,
        retryBackoff: retry.backoff,
        expireInSeconds: settings.jobExpireSeconds,
      });
    }
  });
  const queue: TaskQueue = {
    shared: true,
    async send(task, payload, options = {}) {
      const id = await boss.send(
        task.name,
        payload as object,
        options.id === undefined ? {} : { id: options.id },
      );
      return { queued: id !== null };
    },
    async sendMany(task, jobs) {
      if (jobs.length > 0)
        await boss.insert(jobs.map((job) => ({ name: task.name, id: job.id, data: job.payload as object })));
    },
    async close() {
      // Trainings were aborted first (ctx.training.abortAll): their attempts end, the jobs go back for retry.
      stopping.abort(new Error("the worker is shutting down"));
      ctx.logger.info("job queue stopping");
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
  try {
    if (working) {
      const poll = {
        pollingIntervalSeconds: settings.jobPollSeconds,
        includeMetadata: true as const,
        batchSize: 1,
      };
      for (const task of tasks) {
        const runners = task.runners === "one" ? 1 : role.concurrency;
        for (let i = 0; i < runners; i++) {
          let worker: string | undefined;
          worker = await boss.work<object>(
            task.name,
            poll,
            async ([job]: PgBoss.JobWithMetadata<object>[]) => {
              if (!job) return;
              try {
                const attempt: TaskAttempt = {
                  ctx,
                  jobId: job.id,
                  final: job.retryCount >= job.retryLimit,
                  retryCount: job.retryCount,
                  queuedAt: job.createdOn,
                  signal: stopping.signal,
                  queue,
                };
                const parsed = task.payload.safeParse(job.data);
                if (!parsed.success) {
                  // Another attempt would meet the same payload: the job ends here, logged.
                  ctx.logger.error(
                    { task: task.name, job_id: job.id, issues: parsed.error.issues },
                    "bad job payload",
                  );
                  return;
                }
                const outcome = await task.run(parsed.data, attempt);
                // pg-boss retries a job whose handler throws: the only way to ask it for another attempt.
                if (outcome.status === "retry") throw new Error(outcome.reason);
              } finally {
                // pg-boss 10 waits out the rest of the polling interval after every job, queued ones too: without
                // this, a worker ran at most one job per `jobPollSeconds` however fast they were.
                if (worker !== undefined) boss.notifyWorker(worker);
              }
            },
          );
        }
      }
      await boss.schedule(nightlyFanOutTask.name, settings.batchCron, {}, { tz: "UTC" });
      await catchUpOnQueue(ctx, queue);
    }
  } catch (error) {
    await boss.stop({ graceful: false, wait: true });
    throw error;
  }
  return queue;
}
