import type { Artifacts } from "./artifacts.js";
import { PolicyStoreError } from "./errors.js";
import { mintedAt } from "./model-ids.js";
import type { SlotState } from "./schemas.js";
import { neededModels } from "./slot-history.js";
import type { Slots } from "./slots.js";
import type { ArtifactBackend } from "./store-backend.js";

export interface GcOptions {
  /** List what would go, remove nothing. */
  dryRun?: boolean;
  /** Never remove an artifact saved (or, when partial, minted) more recently than this (ms). Default 1 h. */
  minAgeMs?: number;
}

export interface GcResult {
  dry_run: boolean;
  /** Artifacts no slot and no history event mention: crash leftovers, partial or complete. */
  artifacts: { company_id: string; model_id: string; complete: boolean }[];
  /** Lock files whose holder died or went stale (paths inside the store; empty for stores without locks). */
  lock_files: string[];
  /** Companies left alone because their slot record does not parse: nothing says what it references. */
  skipped_companies: string[];
}

/** Every model a slot or a kept history event names: what a sweep must never touch. */
function referencedModels(state: SlotState): Set<string> {
  const ids = neededModels(state);
  for (const event of state.history) {
    for (const id of [event.model_id, event.replaced_latest, event.replaced_approved]) if (id) ids.add(id);
  }
  return ids;
}

/**
 * Sweeps what interrupted work left: artifacts of trainings that died before taking a slot (and partial saves),
 * older than `minAgeMs`, and stale lock files. Unlike `retain`, it keeps every artifact the history mentions.
 */
export async function collectGarbage(
  deps: {
    slots: Slots;
    artifacts: Artifacts;
    backend: ArtifactBackend;
    listCompanies: () => Promise<string[]>;
    sweepStaleLocks: (options: { dryRun: boolean }) => Promise<string[]>;
    clock: () => Date;
  },
  { dryRun = false, minAgeMs = 3_600_000 }: GcOptions = {},
): Promise<GcResult> {
  const cutoff = deps.clock().getTime() - minAgeMs;
  const result: GcResult = { dry_run: dryRun, artifacts: [], lock_files: [], skipped_companies: [] };
  const referenced = async (companyId: string) => referencedModels(await deps.slots.read(companyId));
  for (const companyId of await deps.listCompanies()) {
    let keep: Set<string>;
    try {
      keep = await referenced(companyId);
    } catch (error) {
      if (!(error instanceof PolicyStoreError && error.code === "corrupt_slots")) throw error;
      result.skipped_companies.push(companyId);
      continue;
    }
    for (const { modelId, complete } of await deps.backend.listModels(companyId)) {
      if (keep.has(modelId)) continue;
      const savedAt = complete
        ? await deps.artifacts.record(companyId, modelId).then(
            (record) => Date.parse(record.saved_at),
            () => mintedAt(modelId),
          )
        : mintedAt(modelId);
      if (savedAt > cutoff) continue;
      // Re-read right before deleting: a commit may have taken this very model since the scan.
      if (!dryRun) {
        if ((await referenced(companyId)).has(modelId)) continue;
        await deps.backend.delete(companyId, modelId);
      }
      result.artifacts.push({ company_id: companyId, model_id: modelId, complete });
    }
  }
  result.lock_files = await deps.sweepStaleLocks({ dryRun });
  return result;
}
