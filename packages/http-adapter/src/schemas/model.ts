import { z } from "zod";
import {
  companyIdSchema,
  modelIdSchema,
  queryIntegerSchema,
  sourceSchema,
  timestampSchema,
} from "./common.js";

/**
 * Metric names the API still sends for one release after a rename, each with the name replacing it: a response
 * carries both, with the same value, whichever name the artifact was written with.
 */
export const DEPRECATED_METRIC_NAMES = { estimatedMargin: "networkEstimatedMargin" } as const;

export const modelMetricsSchema = z
  .object({
    policyMargin: z
      .number()
      .optional()
      .describe(
        "Exact expected margin (currency) of the policy over the horizon, under the fitted demand model.",
      ),
    ruleMargin: z
      .number()
      .optional()
      .describe("Exact expected margin of the rule under the same model, over the products the rule prices."),
    upliftPct: z.number().optional().describe("100 * (policyMargin / ruleMargin - 1)."),
    networkEstimatedMargin: z
      .number()
      .optional()
      .describe(
        "The policy network's own estimate of policyMargin (its value of the first day's states); far from " +
          "policyMargin means the network's values are off even where its prices are good.",
      ),
    estimatedMargin: z.number().optional().meta({
      deprecated: true,
      description: "Deprecated name of networkEstimatedMargin (same value); removed in the next release.",
    }),
    upliftIntervalPct: z
      .object({ low: z.number(), high: z.number() })
      .nullable()
      .optional()
      .describe(
        "Interval of upliftPct over the plausible demand models of the safety check (the fitted parameters -/+ 2 " +
          "standard errors): low is the rule-relative gain where each product's policy does worst against the " +
          "rule, high its mirror about upliftPct; null when the artifact has no safety report.",
      ),
  })
  .catchall(z.number())
  .describe("Evaluation metrics of the artifact (numbers), e.g. expected margin vs rule, training effort.");

export const explorationReportSchema = z
  .object({
    exploration: z.enum(["off", "cautious", "free"]).describe("The company's exploration setting."),
    as_of: z.string().describe("The company's today the prices are planned for (YYYY-MM-DD)."),
    products: z.array(
      z.object({
        product_id: z.string(),
        observed_price_range: z
          .tuple([z.number(), z.number()])
          .nullable()
          .describe("Lowest and highest price the history has sold at; null without sales."),
        recommended_price: z.number().describe("Today's served price."),
        departure_pct: z
          .number()
          .nullable()
          .describe(
            "How far the recommended price lies beyond the observed range, in percent of its nearest end (0 " +
              "inside, negative below it); null without sales.",
          ),
        exploratory: z.boolean(),
      }),
    ),
  })
  .meta({ id: "ExplorationReport" })
  .describe("How far today's served prices leave the prices the history has seen, per product.");

export const modelSlotSchema = z.object({
  model_id: modelIdSchema,
  version: z.number().int(),
  trained_at: timestampSchema,
  metrics: modelMetricsSchema,
});

export const approvedSlotSchema = modelSlotSchema.extend({ approved_at: timestampSchema });

export const modelReportSchema = z
  .object({
    company_id: companyIdSchema,
    source: sourceSchema,
    model_id: modelIdSchema.nullable().describe("The artifact backing inference; null for rule."),
    latest: modelSlotSchema.nullable(),
    approved: approvedSlotSchema.nullable(),
    fallback_reason: z
      .enum([
        "no_artifact",
        "artifact_unreadable",
        "artifact_incompatible",
        "slots_unreadable",
        "forced_rule",
      ])
      .nullable()
      .describe(
        "Why the preferred source did not serve: no slot set, an artifact that fails to load or verify, one made by an engine this one cannot read, an unreadable slot record, or the rule forced by the operator; null when it served.",
      ),
    exploration: explorationReportSchema.optional(),
  })
  .meta({
    id: "ModelReport",
    examples: [
      {
        company_id: "acme-eu",
        source: "rule",
        model_id: null,
        latest: null,
        approved: null,
        fallback_reason: "no_artifact",
        exploration: {
          exploration: "cautious",
          as_of: "2026-11-22",
          products: [
            {
              product_id: "sku-1",
              observed_price_range: [17.99, 21.99],
              recommended_price: 18.99,
              departure_pct: 0,
              exploratory: false,
            },
          ],
        },
      },
    ],
  });

export const getModelQuerySchema = z.strictObject({ company_id: companyIdSchema });

export const trainBodySchema = z
  .strictObject({
    company_id: companyIdSchema,
    auto_approve: z.boolean().default(false).describe("Also promote the new artifact to approved."),
  })
  .meta({ examples: [{ company_id: "acme-eu", auto_approve: false }] });

export const trainResponseSchema = z
  .object({
    company_id: companyIdSchema,
    model_id: modelIdSchema,
    version: z.number().int(),
    trained_at: timestampSchema,
    auto_approved: z.boolean(),
    slots: z.object({ latest: modelIdSchema.nullable(), approved: modelIdSchema.nullable() }),
    metrics: modelMetricsSchema,
  })
  .meta({
    id: "TrainResponse",
    examples: [
      {
        company_id: "acme-eu",
        model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
        version: 3,
        trained_at: "2026-11-22T10:15:42.000Z",
        auto_approved: false,
        slots: { latest: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F", approved: "mdl_01JCZZ8XH2M4N6P8R0S2T4V6W8" },
        metrics: {
          policyMargin: 51258.51,
          ruleMargin: 49875.62,
          upliftPct: 2.77,
          upliftIntervalPct: { low: 0.41, high: 5.13 },
          trainingSeconds: 31.2,
          episodes: 48,
        },
      },
    ],
  });

export const promoteBodySchema = z
  .strictObject({
    company_id: companyIdSchema,
    model_id: modelIdSchema.describe("Must equal the current latest artifact id."),
  })
  .meta({ examples: [{ company_id: "acme-eu", model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F" }] });

export type ModelReport = z.output<typeof modelReportSchema>;
export type ExplorationReport = z.output<typeof explorationReportSchema>;
export type ModelMetrics = z.output<typeof modelMetricsSchema>;
export type GetModelQuery = z.output<typeof getModelQuerySchema>;
export type TrainRequest = z.output<typeof trainBodySchema>;
export type TrainResponse = z.output<typeof trainResponseSchema>;
export type PromoteRequest = z.output<typeof promoteBodySchema>;

export const modelHistoryQuerySchema = z.strictObject({
  company_id: companyIdSchema,
  limit: queryIntegerSchema({ min: 1, max: 100, default: 20 }),
  offset: queryIntegerSchema({ min: 0, default: 0 }),
});

export const historyArtifactSchema = z
  .object({
    model_id: modelIdSchema,
    version: z.number().int(),
    trained_at: timestampSchema,
    metrics: modelMetricsSchema,
    approved_from: timestampSchema
      .nullable()
      .describe(
        "When the artifact last became approved; null when it never was (as far as the history tells).",
      ),
    approved_until: timestampSchema
      .nullable()
      .describe(
        "When another artifact last replaced it as approved; null while it is approved, or never was.",
      ),
  })
  .meta({ id: "HistoryArtifact" });

export const modelEventSchema = z
  .object({
    at: timestampSchema,
    kind: z.enum(["trained", "promoted", "rolled_back"]),
    model_id: modelIdSchema,
    by: z
      .string()
      .nullable()
      .describe(
        'Who acted: the partner id for API calls, "operator" for the CLI; null for events recorded before this ' +
          "was kept. A train with auto_approve gives a trained and a promoted event at the same time.",
      ),
  })
  .meta({ id: "ModelEvent" });

export const modelHistoryResponseSchema = z
  .object({
    company_id: companyIdSchema,
    total_artifacts: z
      .number()
      .int()
      .describe("Stored artifacts in all (limit and offset page through them)."),
    total_events: z.number().int().describe("Kept events in all (limit and offset page through them)."),
    artifacts: z.array(historyArtifactSchema).describe("Stored artifacts, newest version first."),
    events: z.array(modelEventSchema).describe("Slot changes, newest first."),
  })
  .meta({
    id: "ModelHistory",
    examples: [
      {
        company_id: "acme-eu",
        total_artifacts: 1,
        total_events: 2,
        artifacts: [
          {
            model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
            version: 1,
            trained_at: "2026-11-22T10:15:42.000Z",
            metrics: { policyMargin: 51258.51, ruleMargin: 49875.62, upliftPct: 2.77 },
            approved_from: "2026-11-22T10:20:00.000Z",
            approved_until: null,
          },
        ],
        events: [
          {
            at: "2026-11-22T10:20:00.000Z",
            kind: "promoted",
            model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
            by: "ptr_01JD2W0KQ3M4N5P6R7S8T9V0W1",
          },
          {
            at: "2026-11-22T10:15:42.000Z",
            kind: "trained",
            model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
            by: "ptr_01JD2W0KQ3M4N5P6R7S8T9V0W1",
          },
        ],
      },
    ],
  });

export const rollbackBodySchema = z
  .strictObject({
    company_id: companyIdSchema,
    model_id: modelIdSchema.describe(
      "An artifact approved before (see GET /v2/model/history) to approve again.",
    ),
    expected_approved_model_id: modelIdSchema
      .nullable()
      .describe("The artifact approved now (read it from GET /v2/model); anything else is a 409."),
  })
  .meta({
    examples: [
      {
        company_id: "acme-eu",
        model_id: "mdl_01JCZZ8XH2M4N6P8R0S2T4V6W8",
        expected_approved_model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
      },
    ],
  });

export type ModelHistoryQuery = z.output<typeof modelHistoryQuerySchema>;
export type ModelHistory = z.output<typeof modelHistoryResponseSchema>;
export type ModelEvent = z.output<typeof modelEventSchema>;
export type HistoryArtifact = z.output<typeof historyArtifactSchema>;
export type RollbackRequest = z.output<typeof rollbackBodySchema>;
