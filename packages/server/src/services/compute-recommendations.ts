import type { ComputeRequest, ComputeResponse } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "./company-lookup.js";
import { persistPlan, planCompany } from "./company-plan.js";

/**
 * Prices a company on demand (`POST /v2/recommendations/compute`); persisted as an `on_demand` run unless dry. A
 * persisted run is planned with explanations and stores them; the answer carries them only when `explain` asks.
 * `signal` aborted (the client went away) cancels the plan, waiting or running, and nothing is persisted; once
 * planned, the run is persisted whatever the client does.
 */
export async function computeRecommendations(
  ctx: ServerContext,
  input: ComputeRequest,
  signal?: AbortSignal,
): Promise<ComputeResponse> {
  const company = await findCompany(ctx, input.company_id);
  const plan = await planCompany(ctx, company, {
    ...(signal === undefined ? {} : { signal }),
    ...(input.start_date === undefined ? {} : { startDate: input.start_date }),
    ...(input.end_date === undefined ? {} : { endDate: input.end_date }),
    explain: input.explain || !input.dry_run,
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
