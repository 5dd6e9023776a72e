import { loadPolicyArtifact, type RlPolicy } from "@pricing/engine";
import { DEPRECATED_METRIC_NAMES, type ModelReport } from "@pricing/http-adapter";
import type { ActiveReport, PolicyResolver, PolicyStore, SlotReport } from "@pricing/policy-store";

/**
 * Numeric metrics only: the report's shape is a map of numbers, and the engine leaves unmeasured ones null. A
 * renamed metric goes out under both names while the old one is deprecated, whichever the artifact carries.
 */
export function numericMetrics(metrics: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (metrics === null || typeof metrics !== "object") return out;
  for (const [key, value] of Object.entries(metrics)) {
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  for (const [old, current] of Object.entries(DEPRECATED_METRIC_NAMES)) {
    const value = out[current] ?? out[old];
    if (value !== undefined) {
      out[current] = value;
      out[old] = value;
    }
  }
  return out;
}

function slot(report: SlotReport) {
  return {
    model_id: report.model_id,
    version: report.version,
    trained_at: report.trained_at,
    metrics: numericMetrics(report.metrics),
  };
}

/** The store's answer in the API's `ModelReport` shape. */
export function toModelReport(report: ActiveReport): ModelReport {
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
 * The store's resolver with the engine as loader: an artifact the engine cannot rebuild counts as unreadable,
 * like one that fails its hash check, and the next source serves.
 */
export function createPolicyResolver(store: PolicyStore): PolicyResolver<RlPolicy> {
  return store.createResolver<RlPolicy>({
    load: (artifact) => loadPolicyArtifact(artifact),
    dispose: (policy) => policy.dispose(),
  });
}
