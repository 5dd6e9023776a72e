import { setTimeout as delay } from "node:timers/promises";
import { ApiError, type Operation, type TrainRequest, type TrainResponse } from "@pricing/http-adapter";
import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import type { OperationRow } from "../db/schema.js";
import { runTrainOperation } from "../jobs/train-operation.js";
import { findCompany } from "./company-lookup.js";
import { storedErrorCode, toOperation } from "./get-operation.js";

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

/**
 * A running operation nothing has touched this long lost its process (a running attempt touches it every second)
 * and no queue will retry it: the embedded mode's process died, or pg-boss gave up on a job whose every attempt
 * expired. Seconds.
 */
function abandonedAfterSeconds(ctx: ServerContext): number {
  const settings = ctx.config.pricing;
  return ctx.jobs === undefined ? 30 : 2 * settings.jobExpireSeconds + 60;
}

/**
 * Records a queued training of the company, or answers 409 `training_in_progress` (with `Retry-After`) when the
 * company has one queued or running in any process: the operations table's unique index decides.
 */
async function createTraining(ctx: ServerContext, input: TrainRequest, by?: string): Promise<OperationRow> {
  await findCompany(ctx, input.company_id);
  const operations = ctx.repositories.operations;
  const newOperation = () =>
    operations.create({
      operation_id: `op_${ulid()}`,
      kind: "train",
      company_id: input.company_id,
      input: {
        company_id: input.company_id,
        auto_approve: input.auto_approve,
        ...(by === undefined ? {} : { by }),
      },
    });
  let created = await newOperation();
  if ("active" in created) {
    const before = new Date(ctx.clock().getTime() - abandonedAfterSeconds(ctx) * 1000).toISOString();
    const abandoned = await operations.failAbandoned(input.company_id, "train", before, {
      code: "internal_error",
      message: "The training stopped with its process; train again.",
    });
    if (abandoned) created = await newOperation();
  }
  if ("active" in created) {
    const since = Date.parse(created.active.started_at ?? created.active.created_at);
    throw new ApiError("training_in_progress", undefined, {
      headers: { "Retry-After": ctx.training.retryAfterSince(input.company_id, since) },
    });
  }
  return created.created;
}

/**
 * One attempt in this process (the embedded mode, the CLI). No queue retries it, so an attempt that ends without
 * finishing its operation (it threw before taking it: the company's lock held elsewhere) fails it.
 */
async function attemptHere(
  ctx: ServerContext,
  operationId: string,
  onProgress?: (fraction: number) => void,
): Promise<void> {
  try {
    await runTrainOperation(ctx, operationId, { final: true, ...(onProgress ? { onProgress } : {}) });
  } catch (error) {
    ctx.logger.error({ err: error, operation_id: operationId }, "training failed");
    await ctx.repositories.operations
      .fail(operationId, { code: "internal_error", message: "The training failed; train again." })
      .catch(() => undefined);
  }
}

/**
 * Waits for the operation to finish, wherever it runs: the in-process attempt when there is one, then the row
 * (polled with backoff). A server shutting down stops waiting with 503 (the training goes on in its worker).
 */
async function awaitResult(
  ctx: ServerContext,
  operationId: string,
  settled: Promise<void> | undefined,
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
 * Trains, saves and commits a fresh artifact (`POST /v2/model/train`, `pricing train`) and answers with it: the
 * training is queued as an operation (run by this process, or by any worker on PostgreSQL) and awaited, since the
 * seed's API answers with the result.
 */
export async function trainModel(
  ctx: ServerContext,
  input: TrainRequest,
  options: TrainModelOptions = {},
): Promise<TrainResponse> {
  const op = await createTraining(ctx, input, options.by);
  if (options.onProgress !== undefined) {
    await attemptHere(ctx, op.operation_id, options.onProgress);
    return awaitResult(ctx, op.operation_id, undefined);
  }
  const { attempt } = await enqueue(ctx, op.operation_id);
  return awaitResult(ctx, op.operation_id, attempt);
}

/**
 * Hands the operation to the queue, or, without one, starts it in this process in the background and returns the
 * attempt (so a caller waiting for it need not poll the row).
 */
async function enqueue(ctx: ServerContext, operationId: string): Promise<{ attempt?: Promise<void> }> {
  if (ctx.jobs !== undefined) {
    await ctx.jobs.enqueueTrain({ operationId });
    return {};
  }
  const attempt = attemptHere(ctx, operationId);
  ctx.training.track(attempt);
  return { attempt };
}

/** `Prefer: respond-async`: the training queued, its operation answered at once (202). */
export async function trainModelAsync(
  ctx: ServerContext,
  input: TrainRequest,
  by?: string,
): Promise<Operation> {
  const op = await createTraining(ctx, input, by);
  await enqueue(ctx, op.operation_id);
  return toOperation(op);
}
