import { z } from "zod";
import { latestFiring } from "../batch-catch-up.js";
import { configuredRetry, DONE, type Task } from "../task.js";
import { nightlyCompanyJobs, nightlyCompanyTask } from "./nightly-company.js";

const nightlyFanOutPayload = z.object({});

/**
 * The nightly cron's job on the shared queue: it fires once across all processes and queues one
 * `nightly-company` job per company for that firing (a job already queued for it is kept).
 */
export const nightlyFanOutTask: Task<z.infer<typeof nightlyFanOutPayload>> = {
  name: "nightly-batch",
  payload: nightlyFanOutPayload,
  retry: configuredRetry,
  runners: "one",
  async run(_payload, { ctx, queue, queuedAt }) {
    // The firing this job was sent for (the queue sends it within seconds of the cron's time).
    const firing = latestFiring(ctx.config.pricing.batchCron, queuedAt) ?? queuedAt;
    const companies = await ctx.repositories.companies.list();
    const { batchId, jobs } = nightlyCompanyJobs(companies, firing, "schedule");
    if (jobs.length > 0) await queue.sendMany(nightlyCompanyTask, jobs);
    ctx.logger.info(
      { batch_id: batchId, firing: firing.toISOString(), companies: companies.length },
      "nightly batch fanned out",
    );
    return DONE;
  },
};
