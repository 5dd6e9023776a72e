import { z } from "zod";
import { runTrainOperation } from "../../training/train-operation.js";
import { configuredRetry, DONE, type Task } from "../task.js";

const trainPayload = z.object({ operationId: z.string().min(1) });

export type TrainPayload = z.infer<typeof trainPayload>;

/**
 * One attempt at a training operation (`runTrainOperation`) in whichever process takes the job; the operation row
 * holds what to train. An attempt that ends with the operation neither finished nor failed asks for a retry.
 */
export const trainTask: Task<TrainPayload> = {
  name: "train",
  payload: trainPayload,
  retry: configuredRetry,
  runners: "each-worker",
  async run({ operationId }, { ctx, jobId, retryCount, final }) {
    const fields = { operation_id: operationId, job_id: jobId };
    ctx.logger.info({ ...fields, retry: retryCount }, "training job started");
    const outcome = await runTrainOperation(ctx, operationId, { final });
    if (outcome.status === "retry") {
      ctx.logger.warn({ ...fields, reason: outcome.reason }, "training job failed");
      return { status: "retry", reason: outcome.reason };
    }
    ctx.logger.info({ ...fields, status: outcome.status }, "training job finished");
    return DONE;
  },
};
