import type { PlanArtifact } from "@pricing/engine";
import type { ActivePolicy, ActiveReport } from "@pricing/policy-store";
import type { ServerContext } from "../context.js";
import type { CompanyRow } from "../db/schema.js";

/** The store's fallback reasons plus the operator's kill switch (`pricing company update --force-rule true`). */
export type ServedReport = Omit<ActiveReport, "fallback_reason"> & {
  fallback_reason: ActiveReport["fallback_reason"] | "forced_rule";
};

/**
 * What serves a company: the store's active source, unless the company's `force_rule` is on, then the rule at once
 * (`fallback_reason: "forced_rule"`), the slots still reported as they are. What compute, the nightly run and the
 * model report share.
 */
export async function servedPolicy(
  ctx: ServerContext,
  company: CompanyRow,
): Promise<{ active: ActivePolicy<PlanArtifact>; report: ServedReport }> {
  const resolution = await ctx.policies.resolver.resolve(company.company_id);
  if (company.force_rule !== 1) return resolution;
  return {
    active: { source: "rule", modelId: null, policy: null },
    report: { ...resolution.report, source: "rule", model_id: null, fallback_reason: "forced_rule" },
  };
}
