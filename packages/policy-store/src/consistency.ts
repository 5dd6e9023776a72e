import type { Artifacts } from "./artifacts.js";
import type { SlotState } from "./schemas.js";
import type { Slots } from "./slots.js";
import type { ArtifactBackend } from "./store-backend.js";

export interface ConsistencyReport {
  ok: boolean;
  problems: string[];
}

/**
 * Lists every violation of the invariants a crash must not break: slots point at whole, verified artifacts of
 * the version they state; the history ends at the slot revision; each version is claimed once, by its model.
 */
export async function checkConsistency(
  deps: { slots: Slots; artifacts: Artifacts; backend: ArtifactBackend },
  companyId: string,
): Promise<ConsistencyReport> {
  const { slots, artifacts, backend } = deps;
  const problems: string[] = [];
  let state: SlotState;
  try {
    state = await slots.read(companyId);
  } catch (error) {
    return { ok: false, problems: [(error as Error).message] };
  }
  for (const [slot, entry] of [
    ["latest", state.latest],
    ["approved", state.approved],
  ] as const) {
    if (entry === null) continue;
    try {
      const loaded = await artifacts.load(companyId, entry.model_id);
      if (loaded.record.version !== entry.version) {
        problems.push(`${slot} says version ${entry.version}, record says ${loaded.record.version}`);
      }
    } catch (error) {
      problems.push(`${slot} points at ${entry.model_id}: ${(error as Error).message}`);
    }
  }
  const last = state.history.at(-1);
  if (last !== undefined && last.revision !== state.revision) {
    problems.push(`revision ${state.revision} but last event has revision ${last.revision}`);
  }
  const claims = new Map<number, string>();
  for (const { label, version, claim } of await backend.versionClaims(companyId)) {
    if (claim === null) {
      problems.push(`version claim ${label} does not parse`);
      continue;
    }
    if (claim.version !== version) problems.push(`claim ${label} names version ${claim.version}`);
    claims.set(claim.version, claim.model_id);
  }
  const seen = new Set<number>();
  for (const record of await artifacts.list(companyId)) {
    if (seen.has(record.version)) problems.push(`version ${record.version} used twice`);
    seen.add(record.version);
    if (claims.get(record.version) !== record.model_id) {
      problems.push(`model ${record.model_id} has version ${record.version} claimed by another model`);
    }
  }
  return { ok: problems.length === 0, problems };
}
