import { Cron } from "croner";
import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";
import { companyToday } from "../services/company-today.js";

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
