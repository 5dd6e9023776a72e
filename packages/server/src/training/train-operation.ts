import { passesSafetyGate } from "@pricing/engine";
import { isApiError, type TrainResponse } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { withCompanyLock } from "../db/advisory-locks.js";
import type { OperationRow } from "../db/schema.js";
import type { TrainingRequest } from "./admission.js";
import { committedAnswer } from "./committed-training.js";
import { thisProcess } from "./process-owner.js";
import { trainCompany } from "./train-company.js";

export interface TrainAttempt {
  /** No retry follows this attempt: a failure fails the operation instead of leaving it to the next attempt. */
  final: boolean;
  onProgress?: (fraction: number) => void;
}

/** How often a running training touches its row (its progress and `updated_at`), also when no progress moves. */
const HEARTBEAT_MS = 1_000;

const isFinished = (op: OperationRow | undefined) =>
  op === undefined || op.status === "succeeded" || op.status === "failed";

/** Failures another attempt would meet again (no history, unknown company): the operation fails at once. */
function isPermanent(error: unknown): boolean {
  return isApiError(error) && error.code !== "unavailable" && error.code !== "internal_error";
}

function describe(error: unknown): { code: string; message: string } {
  if (isApiError(error)) return { code: error.code, message: error.message };
  return { code: "internal_error", message: "The training failed; see the worker's log." };
}

/**
 * One attempt at a training operation: the `train` job's handler, in a worker (any process) or in-process. Holds
 * the company's training lock for the whole attempt and re-reads the operation under it, so an attempt whose job
 * expired and was retried elsewhere never commits a second time: the retry waits for the lock (its job fails and
 * is retried later), then finds the operation finished, or finds the model the first attempt was committing
 * already in the slots and finishes the operation with it. Answers with what this attempt committed (undefined when
 * it found the operation finished, or failed it); throws only when the queue should retry.
 */
export async function runTrainOperation(
  ctx: ServerContext,
  operationId: string,
  attempt: TrainAttempt,
): Promise<TrainResponse | undefined> {
  const operations = ctx.repositories.operations;
  const first = await operations.get(operationId);
  if (first === undefined || isFinished(first)) return undefined;
  const postgres = ctx.config.databaseUrl !== undefined;
  return withCompanyLock(ctx.db, postgres, first.company_id, async () => {
    const op = await operations.get(operationId);
    if (op === undefined || isFinished(op)) return undefined;
    const done = await committedAnswer(ctx.policies.store, op);
    if (done !== null) {
      await operations.succeed(operationId, done);
      return done;
    }
    if (!(await operations.start(operationId, thisProcess()))) return undefined;
    const input = JSON.parse(op.input) as TrainingRequest;
    let progress = 0;
    const heartbeat = setInterval(() => {
      operations.progress(operationId, progress).catch(() => undefined);
    }, HEARTBEAT_MS);
    try {
      const result = await trainCompany(
        ctx,
        {
          companyId: op.company_id,
          autoApprove: input.auto_approve === true,
          ...(input.approve_if === "safety_gate" ? { approveIf: passesSafetyGate } : {}),
          ...(input.as_of === undefined ? {} : { today: input.as_of }),
          ...(input.by === undefined ? {} : { by: input.by }),
        },
        {
          onProgress: (fraction) => {
            progress = fraction;
            attempt.onProgress?.(fraction);
          },
          beforeCommit: async (pending) => {
            // The re-check at commit: an operation finished meanwhile (failed by an operator, or by a stale check)
            // must not move the slots.
            const now = await operations.get(operationId);
            if (now?.status !== "running") throw new Error(`operation ${operationId} is no longer running`);
            await operations.committing(operationId, pending.model_id, pending);
          },
        },
      );
      await operations.succeed(operationId, result);
      return result;
    } catch (error) {
      if (isPermanent(error) || attempt.final) {
        await operations.fail(operationId, describe(error));
        if (isPermanent(error)) return undefined;
      }
      ctx.logger.warn(
        { err: error, operation_id: operationId, final: attempt.final },
        "training attempt failed",
      );
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
  });
}
