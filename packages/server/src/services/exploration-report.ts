import { observedPriceRange } from "@pricing/engine";
import type { ExplorationReport } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";
import { servedPolicy } from "./active-policy.js";
import { planCompany } from "./company-plan.js";
import { loadCompanySnapshot } from "./company-snapshot.js";
import { companyToday } from "./company-today.js";

/** A report made for one state of its inputs, kept at most this long (a catalogue import changes no key part). */
const REPORT_TTL_MS = 10 * 60_000;

interface Memo {
  key: string;
  at: number;
  report: Promise<ExplorationReport>;
}

/** Per context and company: the last report, shared by the requests that ask while it is being planned. */
const memos = new WeakMap<ServerContext, Map<string, Memo>>();

/**
 * What the report depends on that changes between reads: the company's day and settings, the source serving, and
 * the sales rows (a new day of sales, an import). Planning it costs a fit and a plan in a thread, so equal states
 * share one report.
 */
async function stateKey(ctx: ServerContext, company: CompanyRow, today: string): Promise<string> {
  const { active } = await servedPolicy(ctx, company);
  const sales = await ctx.repositories.sales.count(company.company_id);
  return JSON.stringify([
    today,
    company.exploration,
    company.force_rule,
    active.source,
    active.modelId,
    sales,
  ]);
}

/**
 * How far today's served prices leave what the history has seen, per product (the model report and the train
 * response): the observed price range (null without sales), today's recommended price and its departure beyond the
 * range in percent of the nearest end (0 inside it, negative below), and whether it is exploratory. Planned as
 * compute plans today, nothing persisted; requests for the same state share one plan.
 */
export async function explorationReport(ctx: ServerContext, company: CompanyRow): Promise<ExplorationReport> {
  const today = companyToday(ctx.clock(), company.timezone);
  const key = await stateKey(ctx, company, today);
  let byCompany = memos.get(ctx);
  if (byCompany === undefined) {
    byCompany = new Map();
    memos.set(ctx, byCompany);
  }
  const now = ctx.clock().getTime();
  const memo = byCompany.get(company.company_id);
  if (memo !== undefined && memo.key === key && now - memo.at < REPORT_TTL_MS) return memo.report;
  const report = planReport(ctx, company, today);
  byCompany.set(company.company_id, { key, at: now, report });
  // A failed report is not kept: the next request plans again.
  report.catch(() => {
    if (byCompany.get(company.company_id)?.report === report) byCompany.delete(company.company_id);
  });
  return report;
}

async function planReport(
  ctx: ServerContext,
  company: CompanyRow,
  today: string,
): Promise<ExplorationReport> {
  const items = (await planCompany(ctx, company, { startDate: today, endDate: today })).recommendations;
  // The engine's observed range over the history the plan reads (the sales before today).
  const { history } = await loadCompanySnapshot(ctx, company, today);
  return {
    exploration: company.exploration,
    as_of: today,
    products: items.map((r) => {
      const range = observedPriceRange(history, r.product_id);
      return {
        product_id: r.product_id,
        observed_price_range: range,
        recommended_price: r.price,
        departure_pct: range === null ? null : departurePct(r.price, range),
        exploratory: r.exploratory ?? false,
      };
    }),
  };
}

/** How far (percent, 2 decimals: a share, not a price) a price leaves the observed range. */
function departurePct(price: number, [lo, hi]: [number, number]): number {
  const pct = (x: number) => Math.round(x * 100) / 100;
  if (price > hi) return pct((100 * (price - hi)) / hi);
  if (price < lo) return pct((100 * (price - lo)) / lo);
  return 0;
}
