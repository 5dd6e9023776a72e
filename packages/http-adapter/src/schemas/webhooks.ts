import { z } from "zod";
import { companyIdSchema, dateSchema, modelIdSchema, sourceSchema, timestampSchema } from "./common.js";

/**
 * Webhook payloads (Standard Webhooks: `{type, timestamp, data}`), documented in the OpenAPI `webhooks` section.
 * The server builds every body through these schemas, so the document and what is sent cannot drift apart.
 */
export const WEBHOOK_EVENT_TYPES = ["recommendations.updated", "model.trained", "model.promoted"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const webhookTimestampSchema = timestampSchema.describe(
  "When the change happened (RFC 3339 UTC); the webhook-timestamp header says when this attempt was signed.",
);

export const recommendationsUpdatedDataSchema = z.object({
  company_id: companyIdSchema,
  run_id: z.string().describe("The persisted run; read it with GET /v2/recommendations (runs_ago=0)."),
  kind: z.enum(["nightly", "on_demand"]),
  as_of: dateSchema.describe("The company's today the run was priced for."),
  start_date: dateSchema,
  end_date: dateSchema,
  source: sourceSchema,
  model_id: modelIdSchema.nullable(),
});

export const modelTrainedDataSchema = z.object({
  company_id: companyIdSchema,
  model_id: modelIdSchema,
  version: z.number().int(),
  trained_at: timestampSchema,
  auto_approved: z
    .boolean()
    .describe(
      "The training also approved the model (a model.promoted event follows with action auto_approve).",
    ),
});

export const modelPromotedDataSchema = z.object({
  company_id: companyIdSchema,
  model_id: modelIdSchema.describe("The model now approved."),
  version: z.number().int(),
  approved_at: timestampSchema,
  previous_model_id: modelIdSchema.nullable().describe("The model approved before (null: none)."),
  action: z
    .enum(["promote", "auto_approve", "rollback"])
    .describe(
      "promote: POST /v2/model/promote; auto_approve: a training with auto_approve; rollback: a rollback.",
    ),
});

function eventSchema<T extends WebhookEventType, D extends z.ZodType>(type: T, data: D, description: string) {
  return z.object({ type: z.literal(type), timestamp: webhookTimestampSchema, data }).describe(description);
}

export const recommendationsUpdatedEventSchema = eventSchema(
  "recommendations.updated",
  recommendationsUpdatedDataSchema,
  "A run was persisted for one of your companies (the nightly batch or a compute).",
);
export const modelTrainedEventSchema = eventSchema(
  "model.trained",
  modelTrainedDataSchema,
  "A training committed a new model version into the latest slot of one of your companies.",
);
export const modelPromotedEventSchema = eventSchema(
  "model.promoted",
  modelPromotedDataSchema,
  "The approved model of one of your companies changed: a promote, a training with auto_approve, or a rollback.",
);

export const webhookEventSchema = z.discriminatedUnion("type", [
  recommendationsUpdatedEventSchema,
  modelTrainedEventSchema,
  modelPromotedEventSchema,
]);
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
export type RecommendationsUpdatedData = z.infer<typeof recommendationsUpdatedDataSchema>;
export type ModelTrainedData = z.infer<typeof modelTrainedDataSchema>;
export type ModelPromotedData = z.infer<typeof modelPromotedDataSchema>;

/** Each event type's payload schema and the component name it has in the OpenAPI document. */
export const WEBHOOK_PAYLOADS = {
  "recommendations.updated": {
    component: "RecommendationsUpdatedEvent",
    schema: recommendationsUpdatedEventSchema,
  },
  "model.trained": { component: "ModelTrainedEvent", schema: modelTrainedEventSchema },
  "model.promoted": { component: "ModelPromotedEvent", schema: modelPromotedEventSchema },
} as const satisfies Record<WebhookEventType, { component: string; schema: z.ZodType }>;
