import type { ServerContext } from "../context.js";
import type { SavedBacktest } from "../repositories/backtests.js";
import { findCompany } from "../services/company-lookup.js";

/** Saved backtests the page lists, newest first. */
const BACKTESTS_SHOWN = 20;

export interface BacktestsView {
  company_id: string;
  total: number;
  backtests: SavedBacktest[];
}

/** A company's saved backtests (`pricing backtest --save`, or the page's own button), newest first. */
export async function backtestsOverview(ctx: ServerContext, companyId: string): Promise<BacktestsView> {
  await findCompany(ctx, companyId);
  const { total, backtests } = await ctx.repositories.backtests.list(companyId, {
    limit: BACKTESTS_SHOWN,
    offset: 0,
  });
  return { company_id: companyId, total, backtests };
}
