import { type BacktestProgress, type BacktestReport, backtestInWorker, type Refit } from "@pricing/engine";
import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import type { SavedBacktest } from "../repositories/backtests.js";
import { findCompany } from "./company-lookup.js";
import { catalogProducts, engineSalesRow } from "./company-snapshot.js";

export interface BacktestRequest {
  company_id: string;
  from: string;
  /** Default: the company's last sales date. */
  to?: string;
  /** Default "daily". */
  refit?: Refit;
  /** Store the report (without its rows) in `backtests`; without it nothing is written. */
  save?: boolean;
}

export interface BacktestOptions {
  /** Who asked ("operator" from the CLI, `console:<name>` from the console), recorded with a saved report. */
  by: string;
  onProgress?: (progress: BacktestProgress) => void;
  signal?: AbortSignal;
}

export interface BacktestResult {
  report: BacktestReport;
  /** The stored record with `save`, else null. */
  saved: SavedBacktest | null;
}

/**
 * `pricing backtest` (DESIGN §9): every sale of the company predicted as the plans on its days would have served it,
 * scored, in a worker thread (never on the caller's event loop). Throws 404 `company_not_found`, and the engine's
 * `BacktestError` (`invalid_range`, `no_history_before`, `no_sales_in_range`) before any thread starts. The CLI and
 * the console call this one function.
 */
export async function runBacktest(
  ctx: ServerContext,
  request: BacktestRequest,
  options: BacktestOptions,
): Promise<BacktestResult> {
  const company = await findCompany(ctx, request.company_id);
  const [products, rows] = await Promise.all([
    ctx.repositories.products.listByCompany(company.company_id),
    ctx.repositories.sales.list({ companyId: company.company_id }),
  ]);
  const report = await backtestInWorker(
    {
      companyId: company.company_id,
      products: catalogProducts(company, products),
      sales: rows.map(engineSalesRow),
      from: request.from,
      ...(request.to === undefined ? {} : { to: request.to }),
      refit: request.refit ?? "daily",
      // As the nightly run plans the company: its exploration setting, its id as the learner's seed, the rule and
      // the fit's band alone when it forces the rule.
      exploration: company.exploration,
      online: company.force_rule !== 1,
      seed: company.company_id,
      horizonDays: ctx.config.pricing.trainHorizonDays,
    },
    {
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
  );
  const saved =
    request.save === true
      ? await ctx.repositories.backtests.insert(report, {
          backtest_id: `bt_${ulid()}`,
          created_at: ctx.clock().toISOString(),
          by: options.by,
        })
      : null;
  return { report, saved };
}
