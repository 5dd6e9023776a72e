import type { ModelReport, PromoteRequest } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { findCompany } from "./company-lookup.js";
import { modelReport } from "./model-report.js";

/**
 * Promotes the latest artifact to approved (`POST /v2/model/promote`, `pricing promote`): 409 `model_id_stale`
 * unless `model_id` is the current latest; 409 `slots_unreadable` when the slot record does not parse; 503 with
 * `Retry-After` while another process holds the slots (the store's errors, as `translateError` says). `by` (the
 * partner, or "operator") is recorded in the slot event.
 */
export async function promoteModel(
  ctx: ServerContext,
  input: PromoteRequest,
  by?: string,
): Promise<ModelReport> {
  await findCompany(ctx, input.company_id);
  const change = await ctx.policies.store.promote(
    input.company_id,
    input.model_id,
    by === undefined ? {} : { by },
  );
  await ctx.webhooks.slotsChanged(input.company_id, change);
  return modelReport(ctx, { company_id: input.company_id });
}
