import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  BODY_ERROR_CODES,
  DATA_ROUTE_ERROR_CODES,
  errorResponses,
  IDEMPOTENT_ERROR_CODES,
} from "../errors.js";
import { describeExpensiveLimits } from "../expensive-operations.js";
import { requestContext } from "../request-context.js";
import { trainBodySchema, trainResponseSchema } from "../schemas/model.js";
import { BEARER_SECURITY, type RouteDeps } from "./route-deps.js";

export type { TrainRequest, TrainResponse } from "../schemas/model.js";

export const TRAIN_ERROR_CODES = [
  ...DATA_ROUTE_ERROR_CODES,
  ...BODY_ERROR_CODES,
  ...IDEMPOTENT_ERROR_CODES,
  "training_in_progress",
  "insufficient_history",
  "slots_unreadable",
] as const;

/** POST /v2/model/train: train a fresh policy artifact (synchronous, 30 s to 5 min). */
export function registerTrainModel(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "POST",
    url: "/v2/model/train",
    bodyLimit: deps.bodyLimit,
    config: { expensive: "train" },
    schema: {
      operationId: "trainModel",
      summary: "Train a fresh RL policy artifact",
      description: `Synchronous; typically 30 seconds to 5 minutes. The artifact becomes latest; with auto_approve also approved. ${describeExpensiveLimits("train", deps.limits)}`,
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      body: trainBodySchema,
      response: { 200: trainResponseSchema, ...errorResponses(TRAIN_ERROR_CODES) },
    },
    handler: async (request) => deps.pricing.train(request.body, requestContext(request)),
  });
}
