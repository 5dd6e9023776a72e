import { addDays, roundCents } from "@pricing/engine";
import type { ExplorationReport } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";
import { planCompany } from "./company-plan.js";
import { companyToday } from "./company-today.js";

/**
 * How far today's served prices leave what the history has seen, per product (the model report and the train
 * response): the observed price range (null without sales), today's recommended price and its departure beyond the
 * range in percent of the nearest end (0 inside it, negative below), and whether it is exploratory. Planned as
 * compute plans today, nothing persisted.
 */
export async function explorationReport(ctx: ServerContext, company: CompanyRow): Promise<ExplorationReport> {
  const today = companyToday(ctx.clock(), company.timezone);
  const plan = await planCompany(ctx, company, { startDate: today, endDate: today });
  const ranges = await ctx.repositories.sales.priceRanges(company.company_id, addDays(plan.today, -1));
  return {
    exploration: company.exploration,
    as_of: plan.today,
    products: plan.recommendations.map((r) => {
      const range = ranges.get(r.product_id) ?? null;
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

function departurePct(price: number, [lo, hi]: [number, number]): number {
  if (price > hi) return roundCents((100 * (price - hi)) / hi);
  if (price < lo) return roundCents((100 * (price - lo)) / lo);
  return 0;
}
