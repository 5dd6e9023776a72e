import type { Artifacts, LoadedArtifact } from "./artifacts.js";
import { PolicyStoreError } from "./errors.js";
import { createLruCache } from "./lru-cache.js";
import type { Slots } from "./slots.js";

export type ActiveSource = "approved" | "latest" | "rule";
/**
 * Why the rule (or latest instead of approved) serves: no slot set; a set slot's artifact missing, corrupt or
 * refused by the loader; refused by the loader as made by an engine it cannot read; the slot record unreadable.
 */
export type FallbackReason =
  | "no_artifact"
  | "artifact_unreadable"
  | "artifact_incompatible"
  | "slots_unreadable";

/**
 * The `code` a loader's error carries to report `artifact_incompatible` rather than `artifact_unreadable` (the
 * engine's own error type has it; the store matches the code, not the type, so it imports nothing of the engine).
 */
const INCOMPATIBLE_CODE = "artifact_incompatible";

function isIncompatible(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { code?: unknown }).code === INCOMPATIBLE_CODE
  );
}

export interface SlotReport {
  model_id: string;
  version: number;
  trained_at: string;
  /** `manifest.metrics` (opaque JSON), or null when the manifest has none or cannot be read. */
  metrics: unknown;
}
export interface ApprovedSlotReport extends SlotReport {
  approved_at: string;
}

/** Which source backs inference and why, with the slot details a model report shows. */
export interface ActiveReport {
  company_id: string;
  /** Slot revision this answer was computed from. */
  revision: number;
  source: ActiveSource;
  /** The artifact backing inference; null when `source` is `rule`. */
  model_id: string | null;
  /**
   * null when the preferred source was used (approved, or latest with no approved slot set);
   * `artifact_unreadable` when a set slot's artifact failed to load, verify or be loaded by the caller;
   * `artifact_incompatible` when the caller's loader refused it with an error whose `code` says so;
   * `slots_unreadable` when the slot record does not parse (both slots are then null); `no_artifact` when no
   * slot is set.
   */
  fallback_reason: FallbackReason | null;
  latest: SlotReport | null;
  approved: ApprovedSlotReport | null;
}

/** The answer of `resolveActive`: the report plus the verified artifact of `model_id` (null for `rule`). */
export interface ActiveResolution extends ActiveReport {
  artifact: LoadedArtifact | null;
}

/** The source backing inference and what the caller's loader made of its artifact. */
export type ActivePolicy<T> =
  | { source: "approved" | "latest"; modelId: string; policy: T }
  | { source: "rule"; modelId: null; policy: null };

export interface PolicyResolution<T> {
  active: ActivePolicy<T>;
  report: ActiveReport;
}

export interface ResolverOptions<T> {
  /**
   * Turns a verified artifact into what inference uses (e.g. rebuilds a network). A throw counts as an
   * unreadable artifact: resolution falls through to the next source. Called once per model while cached.
   */
  load(artifact: LoadedArtifact): T | Promise<T>;
  /** Releases a value dropped from the cache (or on `close`). */
  dispose?(value: T): void;
  /** Loaded values kept, least recently used dropped first. Default 32. */
  cacheSize?: number;
}

/** Resolves the active source with a loader, caching loaded values by model id (artifacts never change). */
export interface PolicyResolver<T> {
  /**
   * DESIGN.md §2's source rule: `approved` if set and its artifact verifies and loads, else `latest` if set
   * and it does, else `rule`. Every call re-verifies the artifact (sha256), so damage is noticed at once; only
   * the loader's work is cached. Never throws for a missing, corrupt or unloadable artifact.
   */
  resolve(companyId: string): Promise<PolicyResolution<T>>;
  /** Disposes every cached value. */
  close(): void;
}

/** What a failed load or verification yields inside `resolveWith` (a loader may legitimately return null). */
interface Failed {
  readonly failed: "artifact_unreadable" | "artifact_incompatible";
}
const UNREADABLE: Failed = { failed: "artifact_unreadable" };
const INCOMPATIBLE: Failed = { failed: "artifact_incompatible" };

/** The active source given a loader: one implementation of the rule for every caller. */
export type ResolveWith = <T>(
  companyId: string,
  load: (artifact: LoadedArtifact) => Promise<T>,
) => Promise<PolicyResolution<T>>;

export function createResolveWith(slots: Slots, artifacts: Artifacts): ResolveWith {
  return async function resolveWith<T>(
    companyId: string,
    load: (artifact: LoadedArtifact) => Promise<T>,
  ): Promise<PolicyResolution<T>> {
    let state: Awaited<ReturnType<Slots["read"]>>;
    try {
      state = await slots.read(companyId);
    } catch (error) {
      if (!(error instanceof PolicyStoreError && error.code === "corrupt_slots")) throw error;
      // Nothing says which artifact a slot meant, so the rule serves until a repair or a new training.
      const report: ActiveReport = {
        company_id: companyId,
        revision: 0,
        source: "rule",
        model_id: null,
        fallback_reason: "slots_unreadable",
        latest: null,
        approved: null,
      };
      return { active: { source: "rule", modelId: null, policy: null }, report };
    }
    const verified = new Map<string, LoadedArtifact>();
    const attempts = new Map<string, Promise<{ value: T } | Failed>>();
    const attempt = (modelId: string) => {
      const cached = attempts.get(modelId);
      if (cached !== undefined) return cached;
      const pending = (async (): Promise<{ value: T } | Failed> => {
        let artifact: LoadedArtifact;
        try {
          artifact = await artifacts.load(companyId, modelId);
        } catch {
          return UNREADABLE;
        }
        verified.set(modelId, artifact);
        try {
          return { value: await load(artifact) };
        } catch (error) {
          return isIncompatible(error) ? INCOMPATIBLE : UNREADABLE;
        }
      })();
      attempts.set(modelId, pending);
      return pending;
    };

    let active: ActivePolicy<T> = { source: "rule", modelId: null, policy: null };
    let fallback: FallbackReason | null = null;
    for (const source of ["approved", "latest"] as const) {
      const slot = state[source];
      if (slot === null) continue;
      const outcome = await attempt(slot.model_id);
      if ("value" in outcome) {
        active = { source, modelId: slot.model_id, policy: outcome.value };
        break;
      }
      fallback = outcome.failed;
    }
    if (active.source === "rule" && fallback === null) fallback = "no_artifact";

    const metrics = async (modelId: string) => {
      const artifact = verified.get(modelId);
      return artifact !== undefined
        ? (artifact.manifest.metrics ?? null)
        : artifacts.metrics(companyId, modelId);
    };
    const { latest, approved } = state;
    const report: ActiveReport = {
      company_id: companyId,
      revision: state.revision,
      source: active.source,
      model_id: active.modelId,
      fallback_reason: fallback,
      latest:
        latest === null
          ? null
          : {
              model_id: latest.model_id,
              version: latest.version,
              trained_at: latest.trained_at,
              metrics: await metrics(latest.model_id),
            },
      approved:
        approved === null
          ? null
          : {
              model_id: approved.model_id,
              version: approved.version,
              trained_at: approved.trained_at,
              metrics: await metrics(approved.model_id),
              approved_at: approved.approved_at,
            },
    };
    return { active, report };
  };
}

export function createPolicyResolver<T>(
  resolveWith: ResolveWith,
  options: ResolverOptions<T>,
): PolicyResolver<T> {
  const cache = createLruCache<T>({
    max: options.cacheSize ?? 32,
    ...(options.dispose === undefined ? {} : { dispose: (value: T) => options.dispose?.(value) }),
  });
  return {
    resolve: async (companyId) =>
      resolveWith(companyId, (artifact) =>
        cache.get(artifact.record.model_id, async () => options.load(artifact)),
      ),
    close: () => cache.clear(),
  };
}
