import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";
import { trainHere } from "./train-model.js";

/** What `retrainIncompatible` did: nothing to do, a new model, or why the retraining failed (the rule serves on). */
export type RetrainOutcome =
  | { status: "not_needed" }
  | { status: "retrained"; model_id: string; auto_approved: boolean }
  | { status: "failed"; error: string };

/**
 * After an engine upgrade, a company whose artifact the engine reports `artifact_incompatible` (a manifest format
 * it no longer reads) is served by the rule or an older slot; the nightly batch retrains it before planning, so
 * the day's run already uses the new model. When the approved slot is the one passed over, the retrained model
 * takes its place (auto-approved): the operator approved this company's trained policy, and the alternative is
 * the rule until someone promotes by hand. A failed retraining (too little history, a training already running)
 * is logged and the nightly run goes on with what serves now. Admitted and recorded like every training, by "nightly".
 */
export async function retrainIncompatible(
  ctx: ServerContext,
  company: CompanyRow,
  today: string,
): Promise<RetrainOutcome> {
  const companyId = company.company_id;
  const { report } = await ctx.policies.resolver.resolve(companyId);
  if (report.fallback_reason !== "artifact_incompatible") return { status: "not_needed" };
  const autoApprove = report.approved !== null && report.source !== "approved";
  try {
    const trained = await trainHere(ctx, {
      company_id: companyId,
      auto_approve: autoApprove,
      by: "nightly",
      as_of: today,
    });
    ctx.logger.info(
      { company_id: companyId, model_id: trained.model_id, auto_approved: trained.auto_approved },
      "retrained an incompatible artifact",
    );
    return { status: "retrained", model_id: trained.model_id, auto_approved: trained.auto_approved };
  } catch (error) {
    ctx.logger.warn({ err: error, company_id: companyId }, "could not retrain an incompatible artifact");
    return { status: "failed", error: error instanceof Error ? error.message : String(error) };
  }
}
