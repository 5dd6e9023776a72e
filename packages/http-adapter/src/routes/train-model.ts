import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  BODY_ERROR_CODES,
  DATA_ROUTE_ERROR_CODES,
  errorResponses,
  IDEMPOTENT_ERROR_CODES,
} from "../errors.js";
import { describeExpensiveLimits } from "../expensive-operations.js";
import { requestContext } from "../request-context.js";
import { trainBodySchema, trainResponseSchema } from "../schemas/model.js";
import { operationSchema } from "../schemas/operations.js";
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

/** Whether a `Prefer` header (RFC 7240: comma-separated, case-insensitive tokens) asks for `respond-async`. */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values
    .flatMap((v) => v.split(","))
    .some((preference) => preference.split(/[=;]/)[0]?.trim().toLowerCase() === "respond-async");
}

/** POST /v2/model/train: train a fresh policy artifact (synchronous, 30 s to 5 min; or queued with 202). */
export function registerTrainModel(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: "POST",
    url: "/v2/model/train",
    bodyLimit: deps.bodyLimit,
    config: { expensive: "train" },
    schema: {
      operationId: "trainModel",
      summary: "Train a fresh RL policy artifact",
      description:
        "Synchronous; typically 30 seconds to 5 minutes (the request waits for the training, whichever process " +
        "runs it). With `Prefer: respond-async` (RFC 7240) it answers at once with 202, the operation, and its " +
        "URL in `Location`; poll GET /v2/operations/{operation_id}. The artifact becomes latest; with " +
        `auto_approve also approved. One training per company at a time: another is 409 training_in_progress. ${describeExpensiveLimits("train", deps.limits)}`,
      tags: ["v2"],
      security: BEARER_SECURITY,
      hide: deps.hidden,
      headers: z.object({
        prefer: z
          .string()
          .optional()
          .describe("`respond-async` to get 202 and an operation instead of waiting for the training."),
      }),
      body: trainBodySchema,
      response: {
        200: trainResponseSchema,
        202: {
          // Its Location and Preference-Applied headers are added to the document by `addAsyncResponseHeaders`.
          description: "Queued (`Prefer: respond-async`): the operation, to poll at `Location`.",
          content: { "application/json": { schema: operationSchema } },
        },
        ...errorResponses(TRAIN_ERROR_CODES),
      },
    },
    handler: async (request, reply) => {
      if (!prefersAsync(request.headers.prefer))
        return deps.pricing.train(request.body, requestContext(request));
      const operation = await deps.pricing.trainAsync(request.body, requestContext(request));
      // The base the partner called (`/public/v1` or the host root), so the URL works as it was given.
      const base = request.url.slice(0, request.url.indexOf("/v2/model/train"));
      return reply
        .code(202)
        .header("location", `${deps.publicUrl()}${base}/v2/operations/${operation.operation_id}`)
        .header("preference-applied", "respond-async")
        .send(operation);
    },
  });
}
