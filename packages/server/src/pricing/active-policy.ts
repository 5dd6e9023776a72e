import { type ActivePolicy, loadPolicyArtifact, type RlPolicy } from "@pricing/engine";
import type { ModelReport } from "@pricing/http-adapter";
import type { ActiveResolution, PolicyStore, SlotReport } from "@pricing/policy-store";

/** Numeric metrics only: the report's shape is a map of numbers, and the engine leaves unmeasured ones null. */
export function numericMetrics(metrics: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (metrics === null || typeof metrics !== "object") return out;
  for (const [key, value] of Object.entries(metrics)) {
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  return out;
}

function slot(report: SlotReport | null) {
  if (report === null) return null;
  return {
    model_id: report.model_id,
    version: report.version,
    trained_at: report.trained_at,
    metrics: numericMetrics(report.metrics),
  };
}

export interface ResolvedPolicy {
  active: ActivePolicy;
  report: ModelReport;
}

/**
 * Resolves which source backs inference (DESIGN.md §2: approved if it loads and verifies, else latest, else the
 * rule) and loads its policy. The store verifies hashes; the engine then rebuilds the network, and an artifact it
 * cannot rebuild counts as unreadable too. Loaded policies are cached by model id: artifacts never change.
 */
export function createPolicyResolver(store: PolicyStore, options: { cacheSize?: number } = {}) {
  const cacheSize = options.cacheSize ?? 32;
  const cache = new Map<string, Promise<RlPolicy>>();

  async function policyOf(companyId: string, modelId: string, artifact: ActiveResolution["artifact"]) {
    let entry = cache.get(modelId);
    if (entry === undefined) {
      entry = (async () => {
        const loaded = artifact ?? (await store.loadArtifact(companyId, modelId));
        return loadPolicyArtifact({ manifest: loaded.manifest, weights: loaded.weights });
      })();
      cache.set(modelId, entry);
      entry.catch(() => cache.delete(modelId));
      if (cache.size > cacheSize) {
        const oldest = cache.keys().next().value as string;
        const evicted = cache.get(oldest);
        cache.delete(oldest);
        void evicted?.then((p) => p.dispose()).catch(() => undefined);
      }
    } else {
      // Moved to the end, so eviction (oldest entry first) spares the policies in use.
      cache.delete(modelId);
      cache.set(modelId, entry);
    }
    return entry;
  }

  return {
    async resolve(companyId: string): Promise<ResolvedPolicy> {
      const resolution = await store.resolveActive(companyId);
      let source = resolution.source;
      let modelId = resolution.model_id;
      let fallback = resolution.fallback_reason;
      let policy: RlPolicy | null = null;
      const candidates: { source: "approved" | "latest"; modelId: string }[] = [];
      if (source !== "rule" && modelId !== null) candidates.push({ source, modelId });
      if (source === "approved" && resolution.latest && resolution.latest.model_id !== modelId) {
        candidates.push({ source: "latest", modelId: resolution.latest.model_id });
      }
      for (const c of candidates) {
        try {
          const artifact = c.modelId === resolution.model_id ? resolution.artifact : null;
          policy = await policyOf(companyId, c.modelId, artifact);
          source = c.source;
          modelId = c.modelId;
          break;
        } catch {
          fallback = "artifact_unreadable";
        }
      }
      if (policy === null) {
        source = "rule";
        modelId = null;
        if (fallback === null)
          fallback = resolution.latest || resolution.approved ? "artifact_unreadable" : "no_artifact";
      }
      const report: ModelReport = {
        company_id: companyId,
        source,
        model_id: modelId,
        latest: slot(resolution.latest),
        approved: resolution.approved
          ? { ...slot(resolution.approved)!, approved_at: resolution.approved.approved_at }
          : null,
        fallback_reason: fallback,
      };
      const active: ActivePolicy =
        policy === null || source === "rule" || modelId === null
          ? { source: "rule", modelId: null, policy: null }
          : { source, modelId, policy };
      return { active, report };
    },

    dispose(): void {
      for (const entry of cache.values()) void entry.then((p) => p.dispose()).catch(() => undefined);
      cache.clear();
    },
  };
}

export type PolicyResolver = ReturnType<typeof createPolicyResolver>;
