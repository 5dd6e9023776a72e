import type { SlotAction, SlotEvent, SlotState } from "./schemas.js";

/** `state`'s history with the event of the change about to produce revision `state.revision + 1`. */
export function withEvent(
  state: SlotState,
  action: SlotAction,
  modelId: string,
  version: number,
  at: string,
  by?: string,
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
      ...(by === undefined ? {} : { by }),
    },
  ];
}

/** When a model held the approved slot, as far as the kept history tells. */
export interface ApprovalPeriod {
  /** When it last became approved. */
  from: string;
  /** When it was last replaced as approved; null while it still is. */
  until: string | null;
}

/** Each model's most recent approval period, from the slot history (oldest first, as the state keeps it). */
export function approvalPeriods(history: readonly SlotEvent[]): Map<string, ApprovalPeriod> {
  const periods = new Map<string, ApprovalPeriod>();
  let current: string | null = null;
  for (const event of history) {
    if (event.action === "train") continue;
    if (current === event.model_id) continue;
    if (current !== null) {
      const period = periods.get(current);
      if (period) period.until = event.at;
    }
    periods.set(event.model_id, { from: event.at, until: null });
    current = event.model_id;
  }
  return periods;
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
