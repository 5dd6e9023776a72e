import { Cron } from "croner";
import type { ServerContext } from "../context.js";
import { unfinishedCompanies } from "./batch-catch-up.js";
import { type BatchReport, runNightlyBatch } from "./nightly-batch.js";

export interface BatchSchedule {
  /** Next planned start, or null when stopped. */
  nextRun(): Date | null;
  /**
   * Settles once the start-up check for a missed batch is done: the caught-up batch's report, or null when none
   * was missed (or catching up failed, which is logged).
   */
  caughtUp: Promise<BatchReport | null>;
  /**
   * Stops the schedule and interrupts a running batch: the company in progress ends and every outcome, the
   * interrupted ones with their reason, is recorded before the promise settles (so close the database after).
   */
  stop(): Promise<void>;
}

/**
 * Schedules the nightly batch in-process on `pricing.batchCron` (UTC). A tick that finds the previous batch
 * still running is skipped (croner's `protect`); a second process doing the same is harmless, the database keeps
 * one nightly run per company and day.
 */
export function startBatchSchedule(
  ctx: ServerContext,
  onDone?: (report: BatchReport) => void,
): BatchSchedule {
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();
  const track = <T>(batch: Promise<T>): Promise<T> => {
    running.add(batch);
    void batch.finally(() => running.delete(batch)).catch(() => undefined);
    return batch;
  };
  const job = new Cron(ctx.config.pricing.batchCron, { timezone: "UTC", protect: true }, async () => {
    try {
      const report = await track(runNightlyBatch(ctx, { trigger: "schedule", signal: stopping.signal }));
      const failed = report.companies.filter((c) => c.status === "failed").length;
      ctx.logger.info(
        { batch_id: report.batch_id, companies: report.companies.length, failed },
        "nightly batch finished",
      );
      onDone?.(report);
    } catch (error) {
      ctx.logger.error({ err: error }, "nightly batch failed");
    }
  });
  const caughtUp = track(catchUp(ctx, job, stopping.signal, onDone));
  return {
    nextRun: () => job.nextRun(),
    caughtUp,
    async stop() {
      job.stop();
      stopping.abort(new Error("the server is shutting down"));
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * A server that was down at the scheduled time, or stopped or killed in the middle of a batch, finishes it at
 * start: the companies of `unfinishedCompanies` since the latest scheduled time run now.
 */
async function catchUp(
  ctx: ServerContext,
  job: Cron,
  signal: AbortSignal,
  onDone?: (report: BatchReport) => void,
): Promise<BatchReport | null> {
  try {
    const missed = job.previousRuns(1, ctx.clock())[0];
    if (!missed) return null;
    const unfinished = await unfinishedCompanies(ctx, missed);
    if (unfinished.length === 0) return null;
    if (signal.aborted) return null;
    const report = await runNightlyBatch(ctx, { trigger: "catch_up", companies: unfinished, signal });
    ctx.logger.info(
      { batch_id: report.batch_id, missed: missed.toISOString() },
      "missed nightly batch caught up",
    );
    onDone?.(report);
    return report;
  } catch (error) {
    ctx.logger.error({ err: error }, "catching up the nightly batch failed");
    return null;
  }
}
