import type { PolicyStore } from "@pricing/policy-store";
import type { Logger } from "pino";
import type { OperationsRepository } from "../repositories/operations.js";
import { committedAnswer } from "./committed-training.js";
import { ownerMayBeAlive } from "./process-owner.js";

export interface SettleDeps {
  operations: OperationsRepository;
  store: PolicyStore;
  logger: Logger;
}

/**
 * Settles the trainings a dead process left `running` (embedded mode: on SQLite no queue retries them, and until now
 * they stayed running until the company trained again): succeeded, with the answer it recorded, when its model
 * was committed (in the slot history) before the process died; failed otherwise. Run when a process opens the
 * database; a training whose owner may be alive is left alone. Returns the operations settled.
 */
export async function settleOrphanedTrainings({
  operations,
  store,
  logger,
}: SettleDeps): Promise<{ succeeded: string[]; failed: string[] }> {
  const settled = { succeeded: [] as string[], failed: [] as string[] };
  for (const op of await operations.running()) {
    if (ownerMayBeAlive(op.owner)) continue;
    // An unreadable slot record says nothing of the commit: left as it is, for an operator (store check).
    const done = await committedAnswer(store, op).catch((error: unknown) => {
      logger.warn({ err: error, operation_id: op.operation_id }, "orphaned training left unsettled");
      return undefined;
    });
    if (done === undefined) continue;
    if (done !== null) {
      if (await operations.succeed(op.operation_id, done)) settled.succeeded.push(op.operation_id);
    } else if (
      await operations.fail(op.operation_id, {
        code: "internal_error",
        message: "The training stopped with its process before its model was committed; train again.",
      })
    ) {
      settled.failed.push(op.operation_id);
    }
  }
  if (settled.succeeded.length + settled.failed.length > 0) {
    logger.warn(settled, "trainings left running by a process that died were settled");
  }
  return settled;
}
