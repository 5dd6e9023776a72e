import { Cron } from "croner";
import type { ServerContext } from "../server-context.js";
import { type BatchReport, runNightlyBatch } from "./nightly-batch.js";
import type { PricingRuntime } from "./pricing-runtime.js";
import { pricingDb } from "./runs-store.js";

export interface BatchScheduler {
  /** Next planned start, or null when stopped. */
  nextRun(): Date | null;
  /**
   * Settles once the start-up check for a missed batch is done: the caught-up batch's report, or null when none
   * was missed (or catching up failed, which is logged).
   */
  caughtUp: Promise<BatchReport | null>;
  stop(): void;
}

/**
 * Schedules the nightly batch in-process on `settings.batchCron` (UTC). A tick that finds the previous batch
 * still running is skipped (croner's `protect`); a second process doing the same is harmless, the database keeps
 * one nightly run per company and day.
 */
export function startBatchScheduler(
  ctx: ServerContext,
  runtime: PricingRuntime,
  onDone?: (report: BatchReport) => void,
): BatchScheduler {
  const job = new Cron(runtime.settings.batchCron, { timezone: "UTC", protect: true }, async () => {
    try {
      const report = await runNightlyBatch(ctx, runtime, { trigger: "schedule" });
      const failed = report.companies.filter((c) => c.status === "failed").length;
      ctx.logger?.info(
        { batch_id: report.batch_id, companies: report.companies.length, failed },
        "nightly batch finished",
      );
      onDone?.(report);
    } catch (error) {
      ctx.logger?.error({ err: error }, "nightly batch failed");
    }
  });
  return {
    nextRun: () => job.nextRun(),
    caughtUp: catchUp(ctx, runtime, job, onDone),
    stop: () => job.stop(),
  };
}

/**
 * A server that was down at the scheduled time runs the missed batch once at start: when no batch has started
 * since the latest scheduled time. Companies that already have their day's run are skipped by the batch itself.
 */
async function catchUp(
  ctx: ServerContext,
  runtime: PricingRuntime,
  job: Cron,
  onDone?: (report: BatchReport) => void,
): Promise<BatchReport | null> {
  try {
    const missed = job.previousRuns(1, ctx.clock())[0];
    if (!missed) return null;
    const since = await pricingDb(ctx.db)
      .selectFrom("batch_outcomes")
      .select("batch_id")
      .where("started_at", ">=", missed.toISOString())
      .limit(1)
      .executeTakeFirst();
    if (since) return null;
    const report = await runNightlyBatch(ctx, runtime, { trigger: "catch_up" });
    ctx.logger?.info(
      { batch_id: report.batch_id, missed: missed.toISOString() },
      "missed nightly batch caught up",
    );
    onDone?.(report);
    return report;
  } catch (error) {
    ctx.logger?.error({ err: error }, "catching up the nightly batch failed");
    return null;
  }
}
