import { ApprovedModelStaleError, ModelIdStaleError, RollbackTargetError } from "./errors.js";
import type { SlotState } from "./schemas.js";
import { everApproved, withEvent } from "./slot-history.js";

/** What a slot needs to know of the artifact it points at. */
interface SlotSource {
  readonly version: number;
  readonly trained_at: string;
}

/**
 * The slots after a training commit: `latest` moves, and `approved` too with `autoApprove` (one revision).
 * Null when they already point there.
 */
export function afterTraining(
  state: SlotState,
  modelId: string,
  source: SlotSource,
  autoApprove: boolean,
  now: () => string,
  by?: string,
): SlotState | null {
  const done = state.latest?.model_id === modelId && (!autoApprove || state.approved?.model_id === modelId);
  if (done) return null;
  const at = now();
  const { version, trained_at } = source;
  return {
    ...state,
    revision: state.revision + 1,
    latest: { model_id: modelId, version, trained_at, committed_at: at },
    approved: autoApprove ? { model_id: modelId, version, trained_at, approved_at: at } : state.approved,
    previous_approved:
      autoApprove && state.approved?.model_id !== modelId
        ? (state.approved?.model_id ?? null)
        : state.previous_approved,
    history: withEvent(state, autoApprove ? "train_auto_approve" : "train", modelId, version, at, by),
  };
}

/** The slots after `modelId` becomes the approved model; the one it replaces is kept for rollback. */
function approve(
  state: SlotState,
  action: "promote" | "rollback",
  modelId: string,
  source: SlotSource,
  at: string,
  by: string | undefined,
): SlotState {
  return {
    ...state,
    revision: state.revision + 1,
    approved: { model_id: modelId, version: source.version, trained_at: source.trained_at, approved_at: at },
    previous_approved: state.approved?.model_id ?? null,
    history: withEvent(state, action, modelId, source.version, at, by),
  };
}

/**
 * The slots after promoting `modelId`, which must be the current latest (else {@link ModelIdStaleError});
 * null when it is approved already.
 */
export function afterPromote(
  state: SlotState,
  modelId: string,
  now: () => string,
  by?: string,
): SlotState | null {
  const latest = state.latest;
  if (latest === null || latest.model_id !== modelId) {
    throw new ModelIdStaleError(state.company_id, String(modelId), latest?.model_id ?? null);
  }
  if (state.approved?.model_id === modelId) return null;
  return approve(state, "promote", modelId, latest, now(), by);
}

/**
 * The model a rollback goes back to (`toModelId`, else `previous_approved`), which must have been approved
 * before; null when it is approved already. Throws `nothing_to_roll_back`, and {@link ApprovedModelStaleError}
 * when `expectedApprovedId` is given (null: "none approved") and the approved slot holds something else.
 */
export function rollbackTarget(
  state: SlotState,
  toModelId: string | undefined,
  expectedApprovedId?: string | null,
): string | null {
  const approvedId = state.approved?.model_id ?? null;
  if (expectedApprovedId !== undefined && expectedApprovedId !== approvedId) {
    throw new ApprovedModelStaleError(state.company_id, expectedApprovedId, approvedId);
  }
  const target = toModelId ?? state.previous_approved;
  if (target === null) {
    throw new RollbackTargetError(
      "nothing_to_roll_back",
      `company ${state.company_id} has no earlier approved model`,
    );
  }
  if (state.approved?.model_id === target) return null;
  if (!everApproved(state).has(target)) {
    throw new RollbackTargetError("nothing_to_roll_back", `model ${target} was never approved`);
  }
  return target;
}

/** The slots after rolling `approved` back to `target` (see {@link rollbackTarget}). */
export function afterRollback(
  state: SlotState,
  target: string,
  source: SlotSource,
  at: string,
  by?: string,
): SlotState {
  return approve(state, "rollback", target, source, at, by);
}
