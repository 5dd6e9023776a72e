import { createHash } from "node:crypto";
import { ulid } from "ulid";
import { z } from "zod";
import type { CompanyRow } from "../../db/schema.js";
import { runCompanyNightly } from "../nightly-batch.js";
import { configuredRetry, DONE, type Task } from "../task.js";

const nightlyCompanyPayload = z.object({
  batchId: z.string().min(1),
  companyId: z.string().min(1),
  trigger: z.enum(["schedule", "catch_up", "cli", "api"]),
});

export type NightlyCompanyPayload = z.infer<typeof nightlyCompanyPayload>;

/**
 * One company's part of a nightly batch on the shared queue (`runCompanyNightly`). A failure or an interruption is
 * recorded in batch_outcomes and retried; the retry records over it, and the runs table's unique index keeps one
 * nightly run per company and day whatever is retried.
 */
export const nightlyCompanyTask: Task<NightlyCompanyPayload> = {
  name: "nightly-company",
  payload: nightlyCompanyPayload,
  retry: configuredRetry,
  runners: "each-worker",
  async run(payload, { ctx, jobId, retryCount, signal }) {
    const company = await ctx.repositories.companies.get(payload.companyId);
    if (!company) return DONE;
    const fields = { batch_id: payload.batchId, company_id: company.company_id, job_id: jobId };
    ctx.logger.info({ ...fields, retry: retryCount }, "nightly company job started");
    const outcome = await runCompanyNightly(ctx, payload.batchId, payload.trigger, company, signal);
    ctx.logger.info({ ...fields, status: outcome.status }, "nightly company job finished");
    if (outcome.status === "failed" || outcome.status === "interrupted") {
      return { status: "retry", reason: outcome.error ?? "nightly run failed" };
    }
    return DONE;
  },
};

/**
 * The id of a company's job for one firing of the nightly cron, the same in every process: whoever queues it (the
 * firing's fan-out, the catch-up of any worker that starts) queues the same id and the queue keeps the first, so
 * each company gets one job per firing across all processes and restarts.
 */
function nightlyJobId(companyId: string, firing: Date): string {
  const hex = createHash("sha256").update(`nightly:${companyId}:${firing.toISOString()}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** One job per company for `firing`, all under one new batch id. */
export function nightlyCompanyJobs(
  companies: readonly CompanyRow[],
  firing: Date,
  trigger: NightlyCompanyPayload["trigger"],
): { batchId: string; jobs: { payload: NightlyCompanyPayload; id: string }[] } {
  const batchId = `bat_${ulid()}`;
  const jobs = companies.map((c) => ({
    id: nightlyJobId(c.company_id, firing),
    payload: { batchId, companyId: c.company_id, trigger },
  }));
  return { batchId, jobs };
}
