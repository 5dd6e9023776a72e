import type { TrainResponse } from "@pricing/http-adapter";
import type { PolicyStore } from "@pricing/policy-store";
import type { OperationRow } from "../db/schema.js";

/**
 * The answer of a training operation whose attempt got as far as its commit: the model it recorded as committing
 * (`operations.committing`) is in the company's slot history. Null when it is not (it never committed).
 */
export async function committedAnswer(store: PolicyStore, op: OperationRow): Promise<TrainResponse | null> {
  if (op.model_id === null || op.result === null) return null;
  const slots = await store.getSlots(op.company_id);
  const committed = slots.history.some(
    (e) => e.model_id === op.model_id && (e.action === "train" || e.action === "train_auto_approve"),
  );
  return committed ? (JSON.parse(op.result) as TrainResponse) : null;
}
