import { ApiError, type ModelReport, type RollbackRequest } from "@pricing/http-adapter";
import { ApprovedModelStaleError, isPolicyStoreError } from "@pricing/policy-store";
import type { ServerContext } from "../context.js";
import { findCompany } from "./company-lookup.js";
import { modelReport } from "./model-report.js";
import { changingSlots } from "./slot-errors.js";

/** The store's refusals of a rollback target: never approved, no longer stored, or failing its hash check. */
const INVALID_TARGET = new Set(["nothing_to_roll_back", "unknown_model", "artifact_unreadable"]);

/**
 * Approves again an artifact that was approved before (`POST /v2/model/rollback`, `pricing model rollback`):
 * compare-and-set on the approved slot (409 `approved_model_stale` when `expected_approved_model_id` is not what
 * is approved), 422 `rollback_target_invalid` for a target never approved or whose artifact no longer loads.
 * `by` is recorded in the slot event.
 */
export async function rollbackModel(
  ctx: ServerContext,
  input: RollbackRequest,
  by?: string,
): Promise<ModelReport> {
  await findCompany(ctx, input.company_id);
  try {
    const change = await changingSlots(() =>
      ctx.policies.store.rollback(input.company_id, {
        toModelId: input.model_id,
        expectedApprovedId: input.expected_approved_model_id,
        ...(by === undefined ? {} : { by }),
      }),
    );
    await ctx.webhooks.slotsChanged(input.company_id, change);
  } catch (error) {
    if (error instanceof ApprovedModelStaleError) throw new ApiError("approved_model_stale");
    if (isPolicyStoreError(error) && INVALID_TARGET.has(error.code)) {
      throw new ApiError("rollback_target_invalid", undefined, { cause: error });
    }
    throw error;
  }
  return modelReport(ctx, { company_id: input.company_id });
}
