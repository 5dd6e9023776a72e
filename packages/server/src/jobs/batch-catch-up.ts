import { Cron } from "croner";
import type { ServerContext } from "../context.js";
import { withSetupLock } from "../db/advisory-locks.js";
import type { CompanyRow } from "../db/schema.js";
import { companyToday } from "../services/company-today.js";
import type { TaskQueue } from "./task.js";
import { nightlyCompanyJobs, nightlyCompanyTask } from "./tasks/nightly-company.js";

/** The latest firing of the nightly cron (UTC) at or before `now`: the batch a start must find finished. */
export function latestFiring(cron: string, now: Date): Date | null {
  const schedule = new Cron(cron, { timezone: "UTC", paused: true });
  try {
    return schedule.previousRuns(1, now)[0] ?? null;
  } finally {
    schedule.stop();
  }
}

/**
 * The catch-up query, for both modes: every company that no batch has recorded an outcome for since `firing` and
 * that lacks today's nightly run (in its own time zone). A company whose run failed has its failure recorded and
 * is not retried at every start; one interrupted by a shutdown is.
 */
export async function unfinishedCompanies(ctx: ServerContext, firing: Date): Promise<CompanyRow[]> {
  const attempted = await ctx.repositories.batchOutcomes.companiesSince(firing.toISOString());
  const unfinished: CompanyRow[] = [];
  for (const company of await ctx.repositories.companies.list()) {
    if (attempted.has(company.company_id)) continue;
    const today = companyToday(ctx.clock(), company.timezone);
    if (!(await ctx.repositories.runs.nightlyExists(company.company_id, today))) unfinished.push(company);
  }
  return unfinished;
}

/**
 * The start-up catch-up on the shared queue (issue 15 item 12): a worker that starts queues a job for every company
 * of `unfinishedCompanies` since the latest firing. The firing's own job ids make it exactly once across processes:
 * companies whose jobs are still queued or running (a batch a dead worker left, a fan-out in progress, another
 * worker's catch-up) keep theirs, and retries finish them. The workers starting together take turns (an advisory
 * lock), so the second finds the first's jobs.
 */
export async function catchUpOnQueue(ctx: ServerContext, queue: TaskQueue): Promise<void> {
  const settings = ctx.config.pricing;
  try {
    const firing = latestFiring(settings.batchCron, ctx.clock());
    if (firing === null) return;
    await withSetupLock(ctx.db, `${settings.jobSchema}:nightly-catch-up`, async () => {
      const unfinished = await unfinishedCompanies(ctx, firing);
      const { batchId, jobs } = nightlyCompanyJobs(unfinished, firing, "catch_up");
      let queued = 0;
      // One by one: the queue says of each whether it was there already.
      for (const job of jobs) {
        if ((await queue.send(nightlyCompanyTask, job.payload, { id: job.id })).queued) queued++;
      }
      ctx.logger.info(
        { batch_id: batchId, firing: firing.toISOString(), unfinished: unfinished.length, queued },
        "nightly catch-up checked",
      );
    });
  } catch (error) {
    ctx.logger.error({ err: error }, "catching up the nightly batch failed");
  }
}
