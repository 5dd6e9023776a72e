import type { TrainRequest, TrainResponse } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { trainCompany } from "../jobs/train-company.js";

export interface TrainModelOptions {
  /** Training progress, 0..1 (the CLI's progress bar). */
  onProgress?: (fraction: number) => void;
  /** Who asked (a partner id, "operator"), recorded in the slot event. */
  by?: string;
}

/**
 * Trains, saves and commits a fresh artifact (`POST /v2/model/train`, `pricing train`): the `train-company` job,
 * run in-process and awaited, since the API answers with the result.
 */
export async function trainModel(
  ctx: ServerContext,
  input: TrainRequest,
  options: TrainModelOptions = {},
): Promise<TrainResponse> {
  return trainCompany(
    ctx,
    {
      companyId: input.company_id,
      autoApprove: input.auto_approve,
      ...(options.by === undefined ? {} : { by: options.by }),
    },
    options.onProgress,
  );
}
