import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import type { BatchOutcomesTable, CompanyRow } from "../db/schema.js";
import type { RecordedBatch } from "../repositories/batch-outcomes.js";
import { findCompany } from "../services/company-lookup.js";
import { persistPlan, planCompany } from "../services/company-plan.js";
import { companyToday } from "../services/company-today.js";
import { refreshModel } from "../training/nightly-refresh.js";
import { retrainIncompatible } from "../training/retrain-incompatible.js";

export interface CompanyOutcome {
  company_id: string;
  as_of: string;
  /**
   * `created`: this batch wrote the run; `exists`: the day's nightly run was already there; `failed`: see error;
   * `interrupted`: the process was stopping (see error), the next start runs it.
   */
  status: BatchOutcomesTable["status"];
  run_id: string | null;
  error: string | null;
  seconds: number;
}

export interface BatchReport {
  batch_id: string;
  trigger: BatchOutcomesTable["trigger"];
  started_at: string;
  finished_at: string;
  companies: CompanyOutcome[];
}

export interface NightlyBatchOptions {
  trigger: BatchOutcomesTable["trigger"];
  /** Only this company (default: every company). */
  companyId?: string;
  /** Only these companies (the catch-up's unfinished ones). */
  companies?: readonly CompanyRow[];
  /**
   * Aborted when the process stops: the company in progress ends (its failure, if any, is recorded as
   * `interrupted` with the reason) and the ones not started are recorded `interrupted`, for the next start.
   */
  signal?: AbortSignal;
}

/** A failure message safe to store and print: the first line, bounded. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split("\n")[0] ?? "error").slice(0, 500);
}

/**
 * One company's nightly run for its today (its own time zone) with the active source. Idempotent: the database's
 * unique index on (company, as_of) for nightly runs keeps exactly one a day, across restarts and concurrent
 * processes; a run that finds the day's run there reports it as `exists`. Before pricing, the company's model learns
 * from the sales that arrived (`refreshModel`); a failed refresh is logged and the run prices with the slots as
 * they are. `asOf` is the day the run is for, decided once by the caller: the refresh, the plan and the outcome
 * all use it, so a run that crosses midnight is still one day's.
 */
export async function nightlyRun(
  ctx: ServerContext,
  company: CompanyRow,
  asOf: string = companyToday(ctx.clock(), company.timezone),
): Promise<Pick<CompanyOutcome, "as_of" | "status" | "run_id">> {
  const runs = ctx.repositories.runs;
  const existing = await runs.nightlyExists(company.company_id, asOf);
  if (existing) return { as_of: asOf, status: "exists", run_id: existing.run_id };
  await retrainIncompatible(ctx, company, asOf);
  try {
    const refresh = await refreshModel(ctx, company, asOf);
    ctx.logger.info({ company_id: company.company_id, as_of: asOf, ...refresh }, "nightly model refresh");
  } catch (error) {
    ctx.logger.warn({ err: error, company_id: company.company_id }, "nightly model refresh failed");
  }
  const run = await persistPlan(
    ctx,
    await planCompany(ctx, company, { explain: true, today: asOf }),
    "nightly",
  );
  const winner = run ?? (await runs.nightlyExists(company.company_id, asOf));
  return { as_of: asOf, status: run ? "created" : "exists", run_id: winner?.run_id ?? null };
}

/**
 * One company's part of a batch: `nightlyRun`, its outcome recorded in `batch_outcomes` (a failure too, which
 * is then returned, not thrown). A queue's per-company job calls this for the company it was handed.
 */
export async function runCompanyNightly(
  ctx: ServerContext,
  batchId: string,
  trigger: BatchOutcomesTable["trigger"],
  company: CompanyRow,
  signal?: AbortSignal,
): Promise<CompanyOutcome> {
  const t0 = performance.now();
  const began = ctx.clock().toISOString();
  const asOf = companyToday(new Date(began), company.timezone);
  const stopping = () => (signal?.aborted ? `interrupted: ${describe(signal.reason ?? "shutdown")}` : null);
  const unfinished = (status: "failed" | "interrupted", error: string): Omit<CompanyOutcome, "seconds"> => ({
    company_id: company.company_id,
    as_of: asOf,
    status,
    run_id: null,
    error,
  });
  let outcome: Omit<CompanyOutcome, "seconds">;
  const notStarted = stopping();
  if (notStarted !== null) {
    outcome = unfinished("interrupted", `${notStarted} before this company's run`);
  } else {
    try {
      outcome = { company_id: company.company_id, ...(await nightlyRun(ctx, company, asOf)), error: null };
    } catch (error) {
      const interrupted = stopping();
      ctx.logger.error(
        { err: error, company_id: company.company_id, batch_id: batchId, interrupted: interrupted !== null },
        "nightly run failed",
      );
      outcome =
        interrupted === null
          ? unfinished("failed", describe(error))
          : unfinished("interrupted", `${interrupted}; ${describe(error)}`);
    }
  }
  const record = () =>
    ctx.repositories.batchOutcomes.record({
      batch_id: batchId,
      trigger,
      ...outcome,
      started_at: began,
      finished_at: ctx.clock().toISOString(),
    });
  try {
    await record().catch(
      // The run may have failed by losing its PostgreSQL connection, which the pool can hand out once more before
      // it notices; it drops it then, and a second try gets a live one.
      () => record(),
    );
  } catch (error) {
    // The database is gone (a shutdown past the queue's grace period): the next start's catch-up runs it.
    ctx.logger.error({ err: error, batch_id: batchId }, "could not record the batch outcome");
  }
  return { ...outcome, seconds: (performance.now() - t0) / 1000 };
}

/**
 * After a whole batch: what trainings killed before taking a slot left behind (`pricing store gc`). Housekeeping
 * only, so a failure is logged and the batch still succeeds.
 */
async function sweepStore(ctx: ServerContext, batchId: string): Promise<void> {
  try {
    const swept = await ctx.policies.store.gc();
    if (swept.artifacts.length > 0 || swept.lock_files.length > 0) {
      ctx.logger.info({ batch_id: batchId, ...swept }, "store gc removed leftovers");
    }
  } catch (error) {
    ctx.logger.warn({ err: error, batch_id: batchId }, "store gc failed");
  }
}

/**
 * The nightly batch: `nightlyRun` for each company (or one), each outcome recorded in `batch_outcomes`; one
 * company's failure is recorded and the others go on. A whole batch (no `companyId`) ends with the store's gc.
 */
export async function runNightlyBatch(
  ctx: ServerContext,
  options: NightlyBatchOptions,
): Promise<BatchReport> {
  const batchId = `bat_${ulid()}`;
  const startedAt = ctx.clock().toISOString();
  const companies =
    options.companies ??
    (options.companyId
      ? [await findCompany(ctx, options.companyId)]
      : await ctx.repositories.companies.list());
  const outcomes: CompanyOutcome[] = [];
  const observed = ctx.metrics.batchStarted();
  const signal = options.signal;
  try {
    for (const company of companies) {
      const outcome = await runCompanyNightly(ctx, batchId, options.trigger, company, signal);
      outcomes.push(outcome);
      if (outcome.status !== "interrupted") observed.company(outcome.status);
    }
  } finally {
    observed.finished();
  }
  if (options.companyId === undefined && !signal?.aborted) await sweepStore(ctx, batchId);
  return {
    batch_id: batchId,
    trigger: options.trigger,
    started_at: startedAt,
    finished_at: ctx.clock().toISOString(),
    companies: outcomes,
  };
}

export interface BatchStatus {
  /** The newest batches, newest first, each with its per-company outcomes. */
  batches: RecordedBatch[];
}

/** The newest `limit` batches as recorded (`pricing batch status`). */
export async function batchStatus(ctx: ServerContext, limit = 5): Promise<BatchStatus> {
  return { batches: await ctx.repositories.batchOutcomes.recent(limit) };
}
