import { ApiError } from "@pricing/http-adapter";
import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import type { OperationRow } from "../db/schema.js";
import { findCompany } from "../services/company-lookup.js";

/**
 * What a training is asked to do, as its operation stores it (`operations.input`), so that any process's attempt
 * trains the same way: the API's, the CLI's, the nightly refresh's and the retrain of an incompatible artifact.
 */
export interface TrainingRequest {
  company_id: string;
  /** Also promote the new artifact to approved, in the same commit. */
  auto_approve?: boolean | undefined;
  /**
   * With `auto_approve`: approve only when the trained artifact passes this named gate (the nightly refresh's
   * safety gate). A name, not a function, because the operation row is all another process's attempt reads.
   */
  approve_if?: "safety_gate";
  /** Who asked (a partner id, "operator", "nightly"), recorded on the operation and in the slot event. */
  by?: string;
  /** The day the training's history ends before (the nightly run's today); by default the company's today then. */
  as_of?: string;
}

/**
 * A running operation nothing has touched this long lost its process (a running attempt touches it every second)
 * and no queue will retry it: the embedded mode's process died, or pg-boss gave up on a job whose every attempt
 * expired. Seconds.
 */
function abandonedAfterSeconds(ctx: ServerContext): number {
  const settings = ctx.config.pricing;
  return ctx.jobs?.shared === true ? 2 * settings.jobExpireSeconds + 60 : 30;
}

/**
 * The one admission decision for a company's training, whoever asks and in whichever process (DESIGN §6): a queued
 * `train` operation is recorded, or 409 `training_in_progress` (with `Retry-After`) answers when the company has
 * one queued or running anywhere: the operations table's partial unique index decides, on SQLite and PostgreSQL.
 * A running operation abandoned by a dead process is failed first, so it does not block the company for good.
 */
export async function admitTraining(ctx: ServerContext, request: TrainingRequest): Promise<OperationRow> {
  const companyId = request.company_id;
  await findCompany(ctx, companyId);
  const operations = ctx.repositories.operations;
  const input: TrainingRequest = {
    company_id: companyId,
    auto_approve: request.auto_approve,
    ...(request.approve_if === undefined ? {} : { approve_if: request.approve_if }),
    ...(request.by === undefined ? {} : { by: request.by }),
    ...(request.as_of === undefined ? {} : { as_of: request.as_of }),
  };
  const newOperation = () =>
    operations.create({ operation_id: `op_${ulid()}`, kind: "train", company_id: companyId, input });
  let created = await newOperation();
  if ("active" in created) {
    const before = new Date(ctx.clock().getTime() - abandonedAfterSeconds(ctx) * 1000).toISOString();
    const abandoned = await operations.failAbandoned(companyId, "train", before, {
      code: "internal_error",
      message: "The training stopped with its process; train again.",
    });
    if (abandoned) created = await newOperation();
  }
  if ("active" in created) {
    const since = Date.parse(created.active.started_at ?? created.active.created_at);
    throw new ApiError("training_in_progress", undefined, {
      headers: { "Retry-After": ctx.training.retryAfterSince(companyId, since) },
    });
  }
  return created.created;
}
