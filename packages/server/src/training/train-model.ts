import { setTimeout as delay } from "node:timers/promises";
import { ApiError, type Operation, type TrainRequest, type TrainResponse } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { storedErrorCode, toOperation } from "../services/get-operation.js";
import { admitTraining, type TrainingRequest } from "./admission.js";
import { runTrainOperation } from "./train-operation.js";

export interface TrainModelOptions {
  /**
   * Training progress, 0..1 (the CLI's progress bar). Given, the training runs in this process, whatever the
   * queue: the CLI trains where the operator runs it.
   */
  onProgress?: (fraction: number) => void;
  /** Who asked (a partner id, "operator"), recorded in the slot event. */
  by?: string;
}

/** Polls of a training run elsewhere: soon at first, then at most this often. */
const POLL_MIN_MS = 100;
const POLL_MAX_MS = 1_000;

/** One attempt in this process, its answer in memory when it trained. No queue retries it: it is the last. */
async function attemptHere(
  ctx: ServerContext,
  operationId: string,
  onProgress?: (fraction: number) => void,
): Promise<TrainResponse | undefined> {
  const outcome = await runTrainOperation(ctx, operationId, {
    final: true,
    ...(onProgress ? { onProgress } : {}),
  });
  return outcome.status === "trained" ? outcome.result : undefined;
}

/**
 * Waits for the operation to finish, wherever it runs: the in-process attempt when there is one, then the row
 * (polled with backoff). A server shutting down stops waiting with 503 (the training goes on in its worker).
 */
async function awaitResult(
  ctx: ServerContext,
  operationId: string,
  settled: Promise<unknown> | undefined,
): Promise<TrainResponse> {
  if (settled) await settled;
  const stopping = ctx.training.stopping;
  for (let wait = POLL_MIN_MS; ; wait = Math.min(POLL_MAX_MS, wait * 1.5)) {
    const op = await ctx.repositories.operations.get(operationId);
    if (op?.status === "succeeded" && op.result !== null) return JSON.parse(op.result) as TrainResponse;
    if (op === undefined || op.status === "failed")
      throw op
        ? new ApiError(storedErrorCode(op), op.error_message ?? undefined)
        : new ApiError("internal_error");
    if (stopping.aborted) throw stopping.reason;
    await delay(wait, undefined, { signal: stopping }).catch(() => undefined);
  }
}

/**
 * A training admitted (`admitTraining`) and run in this process, whatever the queue, its answer returned in memory:
 * the CLI trains where the operator runs it, the nightly refresh and the retrain of an incompatible artifact where
 * the night's batch runs. Another training of the company anywhere makes it 409 `training_in_progress`.
 */
export async function trainHere(
  ctx: ServerContext,
  request: TrainingRequest,
  onProgress?: (fraction: number) => void,
): Promise<TrainResponse> {
  const op = await admitTraining(ctx, request);
  const trained = await attemptHere(ctx, op.operation_id, onProgress);
  return trained ?? awaitResult(ctx, op.operation_id, undefined);
}

/**
 * Trains, saves and commits a fresh artifact (`POST /v2/model/train`, `pricing train`) and answers with it: the
 * training is queued as an operation (run by this process, or by any worker on PostgreSQL) and awaited, since the
 * seed's API answers with the result. With `onProgress` (the CLI) it runs here.
 */
export async function trainModel(
  ctx: ServerContext,
  input: TrainRequest,
  options: TrainModelOptions = {},
): Promise<TrainResponse> {
  const request: TrainingRequest = { ...input, ...(options.by === undefined ? {} : { by: options.by }) };
  if (options.onProgress !== undefined) return trainHere(ctx, request, options.onProgress);
  const op = await admitTraining(ctx, request);
  const { settled } = await enqueue(ctx, op.operation_id);
  return awaitResult(ctx, op.operation_id, settled);
}

/**
 * Hands the operation to the queue. A context without one (a CLI command's) starts it in this process in the
 * background; `settled` then resolves when it has ended (so a caller waiting for it need not poll the row).
 */
async function enqueue(ctx: ServerContext, operationId: string): Promise<{ settled?: Promise<unknown> }> {
  if (ctx.jobs !== undefined) return ctx.jobs.train(operationId);
  const settled = attemptHere(ctx, operationId).catch(() => undefined);
  ctx.training.track(settled);
  return { settled };
}

/** `Prefer: respond-async`: the training queued, its operation answered at once (202). */
export async function trainModelAsync(
  ctx: ServerContext,
  input: TrainRequest,
  by?: string,
): Promise<Operation> {
  const op = await admitTraining(ctx, { ...input, ...(by === undefined ? {} : { by }) });
  await enqueue(ctx, op.operation_id);
  return toOperation(op);
}
