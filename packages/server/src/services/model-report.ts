import type { GetModelQuery, ModelReport } from "@pricing/http-adapter";
import type { SlotReport } from "@pricing/policy-store";
import type { ServerContext } from "../context.js";
import { type ServedReport, servedPolicy } from "./active-policy.js";
import { findCompany } from "./company-lookup.js";
import { explorationReport } from "./exploration-report.js";
import { numericMetrics } from "./numeric-metrics.js";

function slot(report: SlotReport) {
  return {
    model_id: report.model_id,
    version: report.version,
    trained_at: report.trained_at,
    metrics: numericMetrics(report.metrics),
  };
}

/** The store's answer in the API's `ModelReport` shape. */
function toModelReport(report: ServedReport): ModelReport {
  return {
    company_id: report.company_id,
    source: report.source,
    model_id: report.model_id,
    latest: report.latest === null ? null : slot(report.latest),
    approved:
      report.approved === null
        ? null
        : { ...slot(report.approved), approved_at: report.approved.approved_at },
    fallback_reason: report.fallback_reason,
  };
}

/**
 * Which artifact backs inference for a company (`GET /v2/model`, `pricing model`): the active source, both slots
 * and why a slot was passed over.
 */
export async function modelReport(ctx: ServerContext, input: GetModelQuery): Promise<ModelReport> {
  const company = await findCompany(ctx, input.company_id);
  const report = toModelReport((await servedPolicy(ctx, company)).report);
  return { ...report, exploration: await explorationReport(ctx, company) };
}
