import type { Artifacts } from "./artifacts.js";
import { PolicyStoreError } from "./errors.js";
import { mintedAt } from "./model-ids.js";
import type { ArtifactRecord } from "./schemas.js";
import { neededModels } from "./slot-history.js";
import type { Slots } from "./slots.js";
import type { ArtifactBackend } from "./store-backend.js";

export interface RetainOptions {
  /** Unneeded artifacts to keep, newest first. */
  keep: number;
  /** Never delete an artifact saved more recently than this (ms), so a save about to be committed survives. Default 1 h. */
  minAgeMs?: number;
}

export interface RetentionResult {
  /** Model ids whose artifacts (or leftovers of interrupted saves) were deleted. */
  deleted: string[];
  /** Model ids of committed artifacts still stored. */
  kept: string[];
}

/**
 * Deletes artifacts no slot or rollback needs beyond the newest `keep`, and leftovers of interrupted saves,
 * sparing anything younger than `minAgeMs`.
 */
export async function retain(
  deps: { slots: Slots; artifacts: Artifacts; backend: ArtifactBackend; clock: () => Date },
  companyId: string,
  { keep, minAgeMs = 3_600_000 }: RetainOptions,
): Promise<RetentionResult> {
  if (!Number.isInteger(keep) || keep < 0) {
    throw new PolicyStoreError("invalid_input", "keep must be a non-negative integer");
  }
  const { slots, artifacts, backend } = deps;
  const stored = await backend.listModels(companyId);
  const cutoff = deps.clock().getTime() - minAgeMs;
  const needed = neededModels(await slots.read(companyId));
  const unneeded: ArtifactRecord[] = [];
  const orphans: string[] = [];
  for (const { modelId, complete } of stored) {
    if (needed.has(modelId)) continue;
    if (!complete) {
      orphans.push(modelId);
      continue;
    }
    try {
      unneeded.push(await artifacts.record(companyId, modelId));
    } catch {
      orphans.push(modelId);
    }
  }
  unneeded.sort((a, b) => b.version - a.version);
  const victims = [
    ...unneeded
      .slice(keep)
      .filter((r) => Date.parse(r.saved_at) <= cutoff)
      .map((r) => r.model_id),
    ...orphans.filter((id) => mintedAt(id) <= cutoff),
  ];
  const deleted: string[] = [];
  for (const modelId of victims) {
    // Re-read right before deleting: a slot may have moved since the scan.
    if (neededModels(await slots.read(companyId)).has(modelId)) continue;
    await backend.delete(companyId, modelId);
    deleted.push(modelId);
  }
  const kept = (await artifacts.list(companyId)).map((r) => r.model_id);
  return { deleted, kept };
}
