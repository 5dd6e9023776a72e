import { passesSafetyGate } from "@pricing/engine";
import type { TrainResponse } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { withCompanyLock } from "../db/advisory-locks.js";
import type { OperationRow } from "../db/schema.js";
import { asApiError } from "../error-translator.js";
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
  const code = asApiError(error)?.code;
  return code !== undefined && code !== "unavailable" && code !== "internal_error";
}

function describe(error: unknown): { code: string; message: string } {
  const expected = asApiError(error);
  if (expected !== undefined) return { code: expected.code, message: expected.message };
  return { code: "internal_error", message: "The training failed; see the worker's log." };
}

/**
 * What one attempt came to: `trained` (this attempt committed, or found its commit done), `finished` (the operation
 * was finished already, or is failed now for good), or `retry` (nothing changed that another attempt could not
 * redo; the operation stays as it was).
 */
export type TrainAttemptOutcome =
  | { status: "trained"; result: TrainResponse }
  | { status: "finished" }
  | { status: "retry"; reason: string };

const FINISHED: TrainAttemptOutcome = { status: "finished" };

/**
 * One attempt at a training operation: the `train` task's run, in a worker (any process) or in-process. Holds
 * the company's training lock for the whole attempt and re-reads the operation under it, so an attempt whose job
 * expired and was retried elsewhere never commits a second time: the retry waits for the lock (its job fails and
 * is retried later), then finds the operation finished, or finds the model the first attempt was committing
 * already in the slots and finishes the operation with it. A `final` attempt leaves no operation queued or running
 * behind it: its failure fails the operation (unless another attempt is running it).
 */
export async function runTrainOperation(
  ctx: ServerContext,
  operationId: string,
  attempt: TrainAttempt,
): Promise<TrainAttemptOutcome> {
  const operations = ctx.repositories.operations;
  try {
    return await attemptLocked(ctx, operationId, attempt);
  } catch (error) {
    ctx.logger.warn(
      { err: error, operation_id: operationId, final: attempt.final },
      "training attempt failed",
    );
    // Failed before it could run the operation (the company's lock, the database): a last attempt fails it, unless
    // another attempt has it running.
    if (attempt.final && (await operations.get(operationId))?.status === "queued") {
      await operations.fail(operationId, describe(error));
      return FINISHED;
    }
    return { status: "retry", reason: describe(error).message };
  }
}

async function attemptLocked(
  ctx: ServerContext,
  operationId: string,
  attempt: TrainAttempt,
): Promise<TrainAttemptOutcome> {
  const operations = ctx.repositories.operations;
  const first = await operations.get(operationId);
  if (first === undefined || isFinished(first)) return FINISHED;
  const postgres = ctx.config.databaseUrl !== undefined;
  return withCompanyLock(ctx.db, postgres, first.company_id, async (): Promise<TrainAttemptOutcome> => {
    const op = await operations.get(operationId);
    if (op === undefined || isFinished(op)) return FINISHED;
    const done = await committedAnswer(ctx.policies.store, op);
    if (done !== null) {
      await operations.succeed(operationId, done);
      return { status: "trained", result: done };
    }
    if (!(await operations.start(operationId, thisProcess()))) return FINISHED;
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
      return { status: "trained", result };
    } catch (error) {
      ctx.logger.warn(
        { err: error, operation_id: operationId, final: attempt.final },
        "training attempt failed",
      );
      if (isPermanent(error) || attempt.final) {
        await operations.fail(operationId, describe(error));
        return FINISHED;
      }
      return { status: "retry", reason: describe(error).message };
    } finally {
      clearInterval(heartbeat);
    }
  });
}
