import { z } from "zod";
import { ProductSetupSchema, RuleParamsSchema, TrainingConfigSchema } from "../policy/training-input.js";

export const ARTIFACT_FORMAT = "pricing-rl-policy";
/**
 * The manifest format this engine writes. 2: each product's setup carries `overdispersion` and may say
 * `distribution: "negative_binomial"` (format 1 has neither; it reads as over-dispersion 0).
 */
export const ARTIFACT_FORMAT_VERSION = 2;
/**
 * The manifest formats this engine reads, inclusive. The engine version an artifact names is informational: an
 * upgrade keeps serving every artifact whose format is in this range and whose features match; one outside it is
 * `artifact_incompatible` (the model report says so and the next nightly retrains it), never "invalid". Raise
 * `max` with a new format; raise `min` only when dropping the code that reads the oldest one.
 */
export const SUPPORTED_FORMAT_VERSIONS = { min: 1, max: ARTIFACT_FORMAT_VERSION } as const;

/** One float32 block of the weights file: `length` numbers starting at byte `offset`, row-major in `shape`. */
export const TensorEntrySchema = z.strictObject({
  name: z.string().min(1),
  shape: z.array(z.number().int().nonnegative()).min(1),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
});
export type TensorEntry = z.infer<typeof TensorEntrySchema>;

/** Per product, what the safe-improvement check found (see `policy/safe-improvement.ts`). */
export const ProductSafetySchema = z.strictObject({
  productId: z.string().min(1),
  decision: z.enum(["rl", "rule", "rl_no_rule"]),
  models: z.number().int().positive(),
  rlMargin: z.number(),
  ruleMargin: z.number().nullable(),
  rlWorstMargin: z.number(),
  ruleWorstMargin: z.number().nullable(),
  worstCaseGain: z.number().nullable(),
  worstCaseElasticity: z.number().nullable(),
});

export const SafetyReportSchema = z.strictObject({
  /** Width of the plausible-model band in standard errors. */
  z: z.number().nonnegative(),
  productsKeptRl: z.number().int().nonnegative(),
  productsOnRule: z.number().int().nonnegative(),
  products: z.array(ProductSafetySchema),
});

const PolicyMetricsShape = z.strictObject({
  /** Exact expected margin (currency) over the horizon under the fitted model; null when not evaluated. */
  policyMargin: z.number().nullable(),
  ruleMargin: z.number().nullable(),
  /** 100 * (policy / rule - 1). */
  upliftPct: z.number().nullable(),
  trainingSeconds: z.number().nonnegative(),
  episodes: z.number().int().nonnegative(),
  sampledStates: z.number().int().nonnegative(),
  gradientSteps: z.number().int().nonnegative(),
  finalLoss: z.number(),
  /**
   * The Q-network's own estimate of `policyMargin`: the mean Bellman value of the sampled first-day states, summed
   * over products. Far from `policyMargin`, the network's values are off even where its prices are good.
   */
  networkEstimatedMargin: z.number(),
  /** Safe improvement over the rule: worst-case margins and the decision per product; absent when not checked. */
  safety: SafetyReportSchema.optional(),
});
export type PolicyMetrics = z.infer<typeof PolicyMetricsShape>;

/** Manifests written before the rename name `networkEstimatedMargin` `estimatedMargin` (existing data dirs). */
function renameLegacyMetrics(raw: unknown): unknown {
  if (raw === null || typeof raw !== "object" || !("estimatedMargin" in raw)) return raw;
  const { estimatedMargin, ...rest } = raw as Record<string, unknown>;
  return { networkEstimatedMargin: estimatedMargin, ...rest };
}

export const PolicyMetricsSchema = z.preprocess(renameLegacyMetrics, PolicyMetricsShape);

/**
 * The artifact's manifest: plain JSON, validated on load. Everything numeric and large (network weights, the
 * demand tables the features are computed from) lives in the weights file; the store's record pins both files.
 */
export const PolicyManifestSchema = z.strictObject({
  format: z.literal(ARTIFACT_FORMAT),
  formatVersion: z.number().int().min(SUPPORTED_FORMAT_VERSIONS.min).max(SUPPORTED_FORMAT_VERSIONS.max),
  /** Written by engines before the policy store became the home of ids and hashes; read and ignored. */
  modelId: z.string().min(1).optional(),
  companyId: z.string().min(1),
  engineVersion: z.string().min(1),
  createdAt: z.string().datetime(),
  algorithm: z.literal("fitted-q-iteration"),
  backend: z.string(),
  featureSpec: z.strictObject({
    stateFeatures: z.array(z.string()),
    actionFeatures: z.array(z.string()),
    inputs: z.number().int().positive(),
  }),
  actionSpec: z.strictObject({
    /** Price multipliers relative to each product's reference price. */
    multipliers: z.array(z.number().positive()).min(1),
    shutoff: z.boolean(),
  }),
  network: z.strictObject({
    hidden: z.array(z.number().int().positive()).min(1),
    activation: z.literal("relu"),
    outputs: z.number().int().positive(),
  }),
  products: z
    .array(
      z.strictObject({
        setup: ProductSetupSchema,
        referencePrice: z.number().positive(),
        /** Name of the tensor with this product's demand rates (units/day), [horizon, prices]. */
        ratesTensor: z.string(),
        /** "rule": the network is not trusted for this product and inference prices it by `ruleParams`. */
        pricedBy: z.enum(["rl", "rule"]).default("rl"),
        ruleParams: RuleParamsSchema.optional(),
      }),
    )
    .min(1),
  /** The fitted demand-model parameters the simulator was built from, as the caller gave them. */
  demandModel: z.json().nullable(),
  training: z.strictObject({ config: TrainingConfigSchema, seed: z.number().int() }),
  metrics: PolicyMetricsSchema,
  tensors: z.array(TensorEntrySchema),
  /** Written by engines before the policy store became the home of ids and hashes; read and ignored. */
  weightsBytes: z.number().int().nonnegative().optional(),
  weightsSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
export type PolicyManifest = z.infer<typeof PolicyManifestSchema>;
