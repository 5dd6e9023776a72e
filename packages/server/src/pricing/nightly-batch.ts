import { ulid } from "ulid";
import type { ServerContext } from "../server-context.js";
import { companyToday } from "./company-today.js";
import type { PricingRuntime } from "./pricing-runtime.js";
import { type BatchOutcomesTable, pricingDb } from "./runs-store.js";

export interface CompanyOutcome {
  company_id: string;
  as_of: string;
  /** `created`: this batch wrote the run; `exists`: the day's nightly run was already there; `failed`: see error. */
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
}

/** A failure message safe to store and print: the first line, bounded. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split("\n")[0] ?? "error").slice(0, 500);
}

/**
 * The nightly batch: for each company, a run for its today (its own time zone) with the active source. The
 * database's unique index on (company, as_of) for nightly runs makes "exactly one a day" hold across restarts and
 * concurrent processes; one company's failure is recorded and the others go on.
 */
export async function runNightlyBatch(
  ctx: ServerContext,
  runtime: PricingRuntime,
  options: NightlyBatchOptions,
): Promise<BatchReport> {
  const db = pricingDb(ctx.db);
  const batchId = `bat_${ulid()}`;
  const startedAt = ctx.clock().toISOString();
  const companies = options.companyId
    ? [await runtime.company(options.companyId)]
    : await ctx.db.selectFrom("companies").selectAll().orderBy("company_id").execute();
  const outcomes: CompanyOutcome[] = [];
  for (const company of companies) {
    const t0 = performance.now();
    const began = ctx.clock().toISOString();
    const asOf = companyToday(ctx.clock(), company.timezone);
    let outcome: Omit<CompanyOutcome, "seconds">;
    try {
      const existing = await runtime.runs.nightlyExists(company.company_id, asOf);
      if (existing) {
        outcome = {
          company_id: company.company_id,
          as_of: asOf,
          status: "exists",
          run_id: existing.run_id,
          error: null,
        };
      } else {
        const computed = await runtime.computeRun(company);
        const run = await runtime.persistRun(computed, "nightly");
        const winner = run ?? (await runtime.runs.nightlyExists(company.company_id, asOf));
        outcome = {
          company_id: company.company_id,
          as_of: asOf,
          status: run ? "created" : "exists",
          run_id: winner?.run_id ?? null,
          error: null,
        };
      }
    } catch (error) {
      ctx.logger?.error(
        { err: error, company_id: company.company_id, batch_id: batchId },
        "nightly run failed",
      );
      outcome = {
        company_id: company.company_id,
        as_of: asOf,
        status: "failed",
        run_id: null,
        error: describe(error),
      };
    }
    const seconds = (performance.now() - t0) / 1000;
    outcomes.push({ ...outcome, seconds });
    try {
      await db
        .insertInto("batch_outcomes")
        .values({
          batch_id: batchId,
          trigger: options.trigger,
          ...outcome,
          started_at: began,
          finished_at: ctx.clock().toISOString(),
        })
        .execute();
    } catch (error) {
      ctx.logger?.error({ err: error, batch_id: batchId }, "could not record the batch outcome");
    }
  }
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
  batches: {
    batch_id: string;
    trigger: string;
    started_at: string;
    finished_at: string;
    outcomes: Omit<CompanyOutcome, "seconds">[];
  }[];
}

export async function batchStatus(ctx: ServerContext, limit = 5): Promise<BatchStatus> {
  const db = pricingDb(ctx.db);
  const recent = await db
    .selectFrom("batch_outcomes")
    .select(["batch_id", "trigger"])
    .select((eb) => [eb.fn.min("started_at").as("started_at"), eb.fn.max("finished_at").as("finished_at")])
    .groupBy(["batch_id", "trigger"])
    .orderBy("finished_at", "desc")
    // Batch ids are ULIDs: on equal timestamps the later batch still sorts first.
    .orderBy("batch_id", "desc")
    .limit(limit)
    .execute();
  const batches: BatchStatus["batches"] = [];
  for (const b of recent) {
    const rows = await db
      .selectFrom("batch_outcomes")
      .select(["company_id", "as_of", "status", "run_id", "error"])
      .where("batch_id", "=", b.batch_id)
      .orderBy("company_id")
      .execute();
    batches.push({
      batch_id: b.batch_id,
      trigger: b.trigger,
      started_at: String(b.started_at),
      finished_at: String(b.finished_at),
      outcomes: rows,
    });
  }
  return { batches };
}
