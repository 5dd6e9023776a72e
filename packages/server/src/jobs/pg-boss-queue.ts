import { createHash } from "node:crypto";
import PgBoss from "pg-boss";
import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import { withSetupLock } from "../db/advisory-locks.js";
import type { BatchOutcomesTable, CompanyRow } from "../db/schema.js";
import { runTrainOperation } from "../training/train-operation.js";
import { latestFiring, unfinishedCompanies } from "./batch-catch-up.js";
import type { JobQueue, TrainJobData } from "./job-queue.js";
import { runCompanyNightly } from "./nightly-batch.js";

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

/**
 * The id of a company's job for one firing of the nightly cron, the same in every process: whoever queues it (the
 * firing's fan-out, the catch-up of any worker that starts) inserts the same row, and pg-boss keeps the first
 * (`on conflict do nothing`), so each company gets one job per firing across all processes and restarts.
 */
function nightlyJobId(companyId: string, firing: Date): string {
  const hex = createHash("sha256").update(`nightly:${companyId}:${firing.toISOString()}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** One job per company for `firing`, all under one new batch id; a job already queued for it is kept as is. */
function nightlyJobs(companies: readonly CompanyRow[], firing: Date, trigger: BatchOutcomesTable["trigger"]) {
  const batchId = `bat_${ulid()}`;
  const jobs = companies.map((c) => ({
    name: QUEUES.nightlyCompany,
    id: nightlyJobId(c.company_id, firing),
    data: { batchId, companyId: c.company_id, trigger } satisfies NightlyCompanyData,
  }));
  return { batchId, jobs };
}

/**
 * The start-up catch-up on PostgreSQL (issue 15 item 12): a worker that starts queues a job for every company of
 * `unfinishedCompanies` since the latest firing, the query the embedded mode's catch-up runs. The firing's own
 * job ids make it exactly once across processes: companies whose jobs are still queued or running (a batch a
 * dead worker left, a fan-out in progress, another worker's catch-up) keep theirs, and retries finish them. The
 * workers starting together take turns (an advisory lock), so the second finds the first's jobs.
 */
async function catchUpOnQueue(ctx: ServerContext, boss: PgBoss): Promise<void> {
  const settings = ctx.config.pricing;
  try {
    const firing = latestFiring(settings.batchCron, ctx.clock());
    if (firing === null) return;
    await withSetupLock(ctx.db, `${settings.jobSchema}:nightly-catch-up`, async () => {
      const unfinished = await unfinishedCompanies(ctx, firing);
      const { batchId, jobs } = nightlyJobs(unfinished, firing, "catch_up");
      let queued = 0;
      // One by one: pg-boss answers each with its id, or null when that job was there already.
      for (const job of jobs) if ((await boss.send(job.name, job.data, { id: job.id })) !== null) queued++;
      ctx.logger.info(
        { batch_id: batchId, firing: firing.toISOString(), unfinished: unfinished.length, queued },
        "nightly catch-up checked",
      );
    });
  } catch (error) {
    ctx.logger.error({ err: error }, "catching up the nightly batch failed");
  }
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
 * (`PRICING_JOB_SCHEMA`). Each job expires after `jobExpireSeconds` (pg-boss 10 has no heartbeat): a worker that
 * dies mid-job leaves it active until a worker's maintenance sweep (every `jobMaintenanceSeconds`) fails it, and
 * it is retried (`jobRetryLimit` times, `jobRetryDelaySeconds` doubled each time) by whichever worker polls
 * first. The nightly cron is a pg-boss schedule: it fires once across all processes and fans out one job per
 * company (`nightlyJobId`); the runs table's unique index keeps one nightly run per company and day whatever is
 * retried. pg-boss skips a firing no worker was up for: each working process, as it starts, queues what the
 * latest firing left unfinished (`catchUpOnQueue`). A nightly run stopped by a shutdown is recorded `interrupted`
 * and its job retried.
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
  // Aborted on close: a nightly run that fails while the worker stops is recorded `interrupted` and handed back.
  const stopping = new AbortController();
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
              const fields = { batch_id: job.data.batchId, company_id: company.company_id, job_id: job.id };
              ctx.logger.info({ ...fields, retry: job.retryCount }, "nightly company job started");
              const outcome = await runCompanyNightly(
                ctx,
                job.data.batchId,
                job.data.trigger,
                company,
                stopping.signal,
              );
              ctx.logger.info({ ...fields, status: outcome.status }, "nightly company job finished");
              // A failure or an interruption is recorded in batch_outcomes; the job goes back for a retry, which
              // records over it and keeps one run per day.
              if (outcome.status === "failed" || outcome.status === "interrupted") {
                throw new Error(outcome.error ?? "nightly run failed");
              }
            } finally {
              if (nightlyWorker !== undefined) boss.notifyWorker(nightlyWorker);
            }
          },
        );
      }
      await boss.work(QUEUES.nightly, poll, async ([job]: JobWithMetadata<object>[]) => {
        if (!job) return;
        // The firing this job was sent for (pg-boss sends it within seconds of the cron's time).
        const firing = latestFiring(settings.batchCron, job.createdOn) ?? job.createdOn;
        const companies = await ctx.repositories.companies.list();
        const { batchId, jobs } = nightlyJobs(companies, firing, "schedule");
        if (jobs.length > 0) await boss.insert(jobs);
        ctx.logger.info(
          { batch_id: batchId, firing: firing.toISOString(), companies: companies.length },
          "nightly batch fanned out",
        );
      });
      await boss.schedule(QUEUES.nightly, settings.batchCron, {}, { tz: "UTC" });
      await catchUpOnQueue(ctx, boss);
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
      stopping.abort(new Error("the worker is shutting down"));
      ctx.logger.info("job queue stopping");
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
