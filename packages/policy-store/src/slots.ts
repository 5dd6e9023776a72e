import { PolicyStoreError } from "./errors.js";
import type { SlotState } from "./schemas.js";
import type { SlotBackend } from "./store-backend.js";

export interface SlotChange {
  slots: SlotState;
  /** False when the call was a no-op (e.g. promoting the model already approved). */
  changed: boolean;
}

/** Rounds a compare-and-set may lose to concurrent writers before giving up with `contention`. */
const MAX_CAS_ATTEMPTS = 500;

function emptySlots(companyId: string): SlotState {
  return {
    company_id: companyId,
    revision: 0,
    latest: null,
    approved: null,
    previous_approved: null,
    history: [],
  };
}

/** The slot documents of all companies: read, and changed only by compare-and-set. */
export interface Slots {
  /** The company's slots (an empty state with revision 0 when nothing was committed). */
  read(companyId: string): Promise<SlotState>;
  /**
   * Applies `mutate` to the current slots and writes the result only if nobody wrote in between, retrying on
   * the fresh state otherwise. `mutate` returns null for "no change" and may throw to refuse.
   */
  update(companyId: string, mutate: (state: SlotState) => Promise<SlotState | null>): Promise<SlotChange>;
}

export function createSlots(backend: SlotBackend, options: { historyLimit: number }): Slots {
  async function readStored(companyId: string) {
    return (await backend.read(companyId)) ?? { state: emptySlots(companyId), tag: null };
  }

  return {
    async read(companyId) {
      return (await readStored(companyId)).state;
    },

    async update(companyId, mutate) {
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
        const { state, tag } = await readStored(companyId);
        const next = await mutate(state);
        if (next === null) return { slots: state, changed: false };
        if (next.history.length > options.historyLimit) {
          next.history = next.history.slice(-options.historyLimit);
        }
        if (await backend.write(companyId, next, tag)) return { slots: next, changed: true };
      }
      throw new PolicyStoreError("contention", `gave up updating the slots of ${companyId} under contention`);
    },
  };
}
