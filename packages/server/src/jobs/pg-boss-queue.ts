import PgBoss from "pg-boss";
import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import type { BatchOutcomesTable } from "../db/schema.js";
import { withSetupLock } from "./advisory-locks.js";
import type { JobQueue, TrainJobData } from "./job-queue.js";
import { runCompanyNightly } from "./nightly-batch.js";
import { runTrainOperation } from "./train-operation.js";

/** Queue names (pg-boss 10 needs each created before use). */
export const QUEUES = {
  train: "train",
  nightly: "nightly-batch",
  nightlyCompany: "nightly-company",
} as const;

export interface PgBossRole {
  /** Jobs this process runs at once; 0: it only queues (an API-only replica), runs no schedule and no sweep. */
  concurrency: number;
}

interface NightlyCompanyData {
  batchId: string;
  companyId: string;
  trigger: BatchOutcomesTable["trigger"];
}

/** The handler's job with the retry counters (`includeMetadata`). */
type JobWithMetadata<T> = PgBoss.JobWithMetadata<T>;

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
 * (`PRICING_JOB_SCHEMA`). Each job expires after `jobExpireSeconds` (pg-boss 10 has no heartbeat): a worker that
 * dies mid-job leaves it active until a worker's maintenance sweep (every `jobMaintenanceSeconds`) fails it, and
 * it is retried (`jobRetryLimit` times, `jobRetryDelaySeconds` doubled each time) by whichever worker polls
 * first. The nightly cron is a pg-boss schedule: it fires once across all processes and fans out one job per
 * company; the runs table's unique index keeps one nightly run per company and day whatever is retried.
 */
export async function startPgBossQueue(ctx: ServerContext, role: PgBossRole): Promise<JobQueue> {
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
  const queueOptions = {
    retryLimit: settings.jobRetryLimit,
    retryDelay: settings.jobRetryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: settings.jobExpireSeconds,
  };
  // Processes starting together would otherwise create pg-boss's tables and the queues' partitions at once, which
  // PostgreSQL can answer with a deadlock: one at a time.
  await withSetupLock(ctx.db, settings.jobSchema, async () => {
    await boss.start();
    for (const name of Object.values(QUEUES)) await ensureQueue(boss, name, { name, ...queueOptions });
  });
  try {
    if (working) {
      const poll = {
        pollingIntervalSeconds: settings.jobPollSeconds,
        includeMetadata: true as const,
        batchSize: 1,
      };
      for (let i = 0; i < role.concurrency; i++) {
        await boss.work<TrainJobData>(QUEUES.train, poll, async ([job]: JobWithMetadata<TrainJobData>[]) => {
          if (!job) return;
          ctx.logger.info(
            { operation_id: job.data.operationId, job_id: job.id, retry: job.retryCount },
            "training job started",
          );
          await runTrainOperation(ctx, job.data.operationId, { final: job.retryCount >= job.retryLimit });
          ctx.logger.info({ operation_id: job.data.operationId, job_id: job.id }, "training job finished");
        });
        let nightlyWorker: string | undefined;
        nightlyWorker = await boss.work<NightlyCompanyData>(
          QUEUES.nightlyCompany,
          poll,
          async ([job]: JobWithMetadata<NightlyCompanyData>[]) => {
            if (!job) return;
            // pg-boss 10 waits out the rest of the polling interval after every job, queued ones too: without
            // this, a worker ran at most one company per `jobPollSeconds` however fast its runs were.
            try {
              const company = await ctx.repositories.companies.get(job.data.companyId);
              if (!company) return;
              const outcome = await runCompanyNightly(ctx, job.data.batchId, job.data.trigger, company);
              ctx.logger.info(
                { batch_id: job.data.batchId, company_id: company.company_id, status: outcome.status },
                "nightly company job finished",
              );
              // A failure is recorded in batch_outcomes; the retry tries once more, and keeps one run per day.
              if (outcome.status === "failed") throw new Error(outcome.error ?? "nightly run failed");
            } finally {
              if (nightlyWorker !== undefined) boss.notifyWorker(nightlyWorker);
            }
          },
        );
      }
      await boss.work(QUEUES.nightly, poll, async () => {
        const batchId = `bat_${ulid()}`;
        const companies = await ctx.repositories.companies.list();
        if (companies.length > 0) {
          await boss.insert(
            companies.map((c) => ({
              name: QUEUES.nightlyCompany,
              data: { batchId, companyId: c.company_id, trigger: "schedule" } satisfies NightlyCompanyData,
            })),
          );
        }
        ctx.logger.info({ batch_id: batchId, companies: companies.length }, "nightly batch fanned out");
      });
      await boss.schedule(QUEUES.nightly, settings.batchCron, {}, { tz: "UTC" });
    }
  } catch (error) {
    await boss.stop({ graceful: false, wait: true });
    throw error;
  }
  return {
    async enqueueTrain(data) {
      await boss.send(QUEUES.train, data, { singletonKey: data.operationId });
    },
    async enqueueNightlyBatch() {
      await boss.send(QUEUES.nightly, {});
    },
    async close() {
      // Trainings were aborted first (ctx.training.abortAll): their handlers throw, the jobs go back for retry.
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
