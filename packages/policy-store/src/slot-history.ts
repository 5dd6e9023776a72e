import type { SlotAction, SlotEvent, SlotState } from "./schemas.js";

/** `state`'s history with the event of the change about to produce revision `state.revision + 1`. */
export function withEvent(
  state: SlotState,
  action: SlotAction,
  modelId: string,
  version: number,
  at: string,
): SlotEvent[] {
  return [
    ...state.history,
    {
      revision: state.revision + 1,
      at,
      action,
      model_id: modelId,
      version,
      replaced_latest: state.latest?.model_id ?? null,
      replaced_approved: state.approved?.model_id ?? null,
    },
  ];
}

/** Models approved at some point (as far as the kept history tells): the valid rollback targets. */
export function everApproved(state: SlotState): Set<string> {
  const ids = new Set<string>();
  for (const id of [state.approved?.model_id, state.previous_approved]) {
    if (id) ids.add(id);
  }
  for (const event of state.history) {
    if (event.action !== "train") ids.add(event.model_id);
    if (event.replaced_approved) ids.add(event.replaced_approved);
  }
  return ids;
}

/** Models retention must keep: the slots' and every rollback target. */
export function neededModels(state: SlotState): Set<string> {
  const ids = everApproved(state);
  if (state.latest !== null) ids.add(state.latest.model_id);
  return ids;
}
