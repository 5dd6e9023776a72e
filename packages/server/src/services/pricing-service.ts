import type { PricingService } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import { computeRecommendations } from "./compute-recommendations.js";
import { getOperation } from "./get-operation.js";
import { listRuns } from "./list-runs.js";
import { modelReport } from "./model-report.js";
import { promoteModel } from "./promote-model.js";
import { readRecommendations, readRecommendationsJson } from "./read-recommendations.js";
import { trainModel, trainModelAsync } from "./train-model.js";

/** The adapter's `PricingService`: each V2 route to its operation over the context. */
export function createPricingService(ctx: ServerContext): PricingService {
  return {
    listRuns: (input) => listRuns(ctx, input),
    getRecommendations: (input) => readRecommendations(ctx, input),
    getRecommendationsJson: (input) => readRecommendationsJson(ctx, input),
    compute: (input) => computeRecommendations(ctx, input),
    train: (input) => trainModel(ctx, input),
    trainAsync: (input) => trainModelAsync(ctx, input),
    getOperation: (input, request) => getOperation(ctx, input, request),
    promote: (input) => promoteModel(ctx, input),
    getModel: (input) => modelReport(ctx, input),
  };
}
