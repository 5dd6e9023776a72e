import type { PricingService, RequestContext } from "@pricing/http-adapter";
import type { ServerContext } from "./context.js";
import { computeRecommendations } from "./services/compute-recommendations.js";
import { getOperation } from "./services/get-operation.js";
import { listRuns } from "./services/list-runs.js";
import { modelHistory } from "./services/model-history.js";
import { modelReport } from "./services/model-report.js";
import { createOverrides, deleteOverride, listOverrides } from "./services/overrides.js";
import { promoteModel } from "./services/promote-model.js";
import { readRecommendations, readRecommendationsJson } from "./services/read-recommendations.js";
import { rollbackModel } from "./services/rollback-model.js";
import { trainModel, trainModelAsync } from "./training/train-model.js";

function partnerOf(rc: RequestContext): { by?: string } {
  return rc.principal ? { by: rc.principal.partnerId } : {};
}

/**
 * The adapter's `PricingService`: each V2 route to its operation over the context. Slot changes are recorded as
 * made by the calling partner.
 */
export function createPricingService(ctx: ServerContext): PricingService {
  return {
    listRuns: (input) => listRuns(ctx, input),
    getRecommendations: (input) => readRecommendations(ctx, input),
    getRecommendationsJson: (input) => readRecommendationsJson(ctx, input),
    compute: (input, rc) => computeRecommendations(ctx, input, rc),
    train: (input, rc) => trainModel(ctx, input, partnerOf(rc)),
    trainAsync: (input, rc) => trainModelAsync(ctx, input, rc.principal?.partnerId),
    getOperation: (input, request) => getOperation(ctx, input, request),
    promote: (input, rc) => promoteModel(ctx, input, rc.principal?.partnerId),
    getModel: (input) => modelReport(ctx, input),
    getModelHistory: (input) => modelHistory(ctx, input),
    rollback: (input, rc) => rollbackModel(ctx, input, rc.principal?.partnerId),
    createOverrides: (input, query, rc) =>
      createOverrides(ctx, input, query, rc.principal?.partnerId ?? "unknown"),
    listOverrides: (input) => listOverrides(ctx, input),
    deleteOverride: (input) => deleteOverride(ctx, input),
  };
}
