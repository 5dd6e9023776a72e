import type { ModelReport, RollbackRequest } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "./company-lookup.js";
import { modelReport } from "./model-report.js";

/**
 * Approves again an artifact that was approved before (`POST /v2/model/rollback`, `pricing model rollback`):
 * compare-and-set on the approved slot (409 `approved_model_stale` when `expected_approved_model_id` is not what
 * is approved), 422 `rollback_target_invalid` for a target never approved or whose artifact no longer loads (the
 * store's errors, as `translateError` says). `by` is recorded in the slot event.
 */
export async function rollbackModel(
  ctx: ServerContext,
  input: RollbackRequest,
  by?: string,
): Promise<ModelReport> {
  await findCompany(ctx, input.company_id);
  const change = await ctx.policies.store.rollback(input.company_id, {
    toModelId: input.model_id,
    expectedApprovedId: input.expected_approved_model_id,
    ...(by === undefined ? {} : { by }),
  });
  await ctx.webhooks.slotsChanged(input.company_id, change);
  return modelReport(ctx, { company_id: input.company_id });
}
