import {
  ApiError,
  type ComputeRequest,
  type ComputeResponse,
  type RequestContext,
} from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "./company-lookup.js";
import { persistPlan, planCompany } from "./company-plan.js";

/**
 * What an explained price weighs against `pricing.computeMaxPrices`: its explanation about doubles the item's
 * bytes in the answer.
 */
const EXPLAINED_PRICE_WEIGHT = 2;

/**
 * Refuses a compute whose answer would be over `maxPrices` (products x days, explained prices counting
 * `EXPLAINED_PRICE_WEIGHT` times) with 422 `answer_too_large`, naming the limit and the longest range that fits.
 */
function answerCap(maxPrices: number, explain: boolean) {
  const weight = explain ? EXPLAINED_PRICE_WEIGHT : 1;
  return ({ products, days }: { products: number; days: number }): void => {
    const prices = products * days * weight;
    if (prices <= maxPrices) return;
    const fits = Math.floor(maxPrices / Math.max(1, products * weight));
    const counted = explain ? ", explained prices counting twice" : "";
    throw new ApiError(
      "answer_too_large",
      `The answer would hold ${prices} prices (${products} products x ${days} days${counted}), over this ` +
        `server's limit of ${maxPrices} (PRICING_COMPUTE_MAX_PRICES). ` +
        (fits >= 1
          ? `Ask for at most ${fits} days at a time with start_date and end_date${explain ? ", or without explain" : ""}.`
          : "Even one day of this company's catalogue is over it; ask the operator to raise the limit."),
    );
  };
}

/**
 * Prices a company on demand (`POST /v2/recommendations/compute`); persisted as an `on_demand` run unless dry. A
 * persisted run is planned with explanations and stores them; the answer carries them only when `explain` asks.
 * The request's signal aborted (the client went away) cancels the plan, waiting or running, and nothing is
 * persisted; once planned, the run is persisted whatever the client does. The plan waits in its partner's queue.
 */
export async function computeRecommendations(
  ctx: ServerContext,
  input: ComputeRequest,
  rc: Pick<RequestContext, "signal" | "principal"> = {},
): Promise<ComputeResponse> {
  const company = await findCompany(ctx, input.company_id);
  const plan = await planCompany(ctx, company, {
    ...(rc.signal === undefined ? {} : { signal: rc.signal }),
    ...(rc.principal === undefined ? {} : { queue: rc.principal.partnerId }),
    ...(input.start_date === undefined ? {} : { startDate: input.start_date }),
    ...(input.end_date === undefined ? {} : { endDate: input.end_date }),
    explain: input.explain || !input.dry_run,
    admit: answerCap(ctx.config.pricing.computeMaxPrices, input.explain),
  });
  const run = input.dry_run ? null : await persistPlan(ctx, plan, "on_demand");
  return {
    company_id: company.company_id,
    persisted: run !== null,
    run,
    source: plan.source,
    model_id: plan.modelId,
    recommendations: input.explain
      ? plan.recommendations
      : plan.recommendations.map(({ explanation: _, ...r }) => r),
  };
}
