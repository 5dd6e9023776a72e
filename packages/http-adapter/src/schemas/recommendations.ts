import { z } from "zod";
import {
  checkDateRange,
  companyIdSchema,
  currencySchema,
  dateSchema,
  modelIdSchema,
  queryBooleanSchema,
  queryIntegerSchema,
  sourceSchema,
  timestampSchema,
} from "./common.js";

/** Example values shared by the schemas' OpenAPI examples, so that they agree with each other. */
const exampleRecommendation = {
  product_id: "sku-1",
  date: "2026-11-22",
  price: 19.49,
  currency: "EUR",
  base_price: 19.99,
  rule_price: 18.99,
  expected_units: 12.4,
  expected_revenue: 241.68,
  source: "approved",
  model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
  expected_units_p10: 8,
  expected_units_p90: 17,
  exploratory: false,
  lowest_price_30d: 18.99,
  override_id: null,
} as const;

const exampleExplanation = {
  rule_price: 18.99,
  weekday_index: 1.12,
  stock_cover_days: 9.4,
  elasticity: 1.8,
  elasticity_se: 0.21,
  observed_price_range: [17.99, 21.99],
  binding: null,
} as const;

/** A run as it appears in the examples of the read, compute and list operations. */
export const exampleRun = {
  run_id: "run_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
  company_id: "acme-eu",
  kind: "nightly",
  as_of: "2026-11-21",
  created_at: "2026-11-21T02:00:03.120Z",
  source: "approved",
  model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
  start_date: "2026-11-22",
  end_date: "2026-12-05",
  products: 12,
  recommendation_count: 168,
} as const;

export const explanationSchema = z
  .object({
    rule_price: z
      .number()
      .describe(
        "The rule's own price before the guardrails and the max daily change (base price x weekday index ^ k x " +
          "stock pacing); the item's rule_price is this price bound.",
      ),
    weekday_index: z
      .number()
      .describe(
        "Units sold on the date's weekday relative to the average day, from the history (1 without).",
      ),
    stock_cover_days: z
      .number()
      .nullable()
      .describe(
        "Stock at the start of the date divided by the date's expected_units; null when the stock is unlimited " +
          "or expected_units is 0.",
      ),
    elasticity: z
      .number()
      .nullable()
      .describe("Price elasticity of the demand fit; null when the fit does not know the product."),
    elasticity_se: z.number().nullable().describe("Its standard error; null with it (or when not finite)."),
    observed_price_range: z
      .tuple([z.number(), z.number()])
      .describe("Lowest and highest price the history sold at; the base price twice without history."),
    binding: z
      .enum(["min_price", "max_price", "max_daily_change", "exploration_limit", "override"])
      .nullable()
      .describe(
        "The constraint that moved the price from what the model, learner or rule chose: a guardrail (also " +
          "where it overrides the max daily change), the max daily change (also where no printable price lay " +
          "within it and the nearest beyond it in the direction of the change was taken), the exploration cap " +
          "on a model's price, or a partner override's min_price / max_price; null when none did (a price moved " +
          "only to the nearest printable price is not bound).",
      ),
  })
  .meta({ id: "Explanation", examples: [exampleExplanation] });

export const recommendationSchema = z
  .object({
    product_id: z.string(),
    date: dateSchema,
    price: z
      .number()
      .describe(
        "Recommended price in `currency`: on its minor unit (Intl's digits: JPY 0, EUR 2, KWD 3) and one of the " +
          "product's price endings where they fit the currency, or a partner's pinned price.",
      ),
    currency: currencySchema,
    base_price: z.number(),
    rule_price: z.number().describe("What the rule-based fallback would charge."),
    expected_units: z.number(),
    expected_revenue: z.number(),
    source: sourceSchema
      .or(z.literal("override"))
      .describe("What priced the item: the active source's, or `override` for a partner's pinned price."),
    model_id: modelIdSchema.nullable(),
    override_id: z
      .string()
      .nullable()
      .describe(
        "The partner override (POST /v2/overrides) in force on the item's date: its pin priced the item " +
          "(source override) or its min_price / max_price narrowed the guardrails; null elsewhere and on runs " +
          "persisted before overrides existed.",
      ),
    lowest_price_30d: z
      .number()
      .nullable()
      .describe(
        "The lowest price of the product on the 30 days before the item's date (the sales history first, then " +
          "the run's own earlier days), the reference of an announced price reduction in the EU (Directive " +
          "98/6/EC Art. 6a); null where no price is known and on runs persisted before it existed.",
      ),
    expected_units_p10: z
      .number()
      .nullable()
      .describe(
        "Units at the 10th percentile of the day's sales (the demand model's uncertainty and the sales noise " +
          "together), <= expected_units; null on runs persisted before it existed.",
      ),
    expected_units_p90: z
      .number()
      .nullable()
      .describe("Units at the 90th percentile, >= expected_units; null on runs persisted before it existed."),
    exploratory: z
      .boolean()
      .nullable()
      .describe(
        "The price was chosen partly to learn, or leaves the range of prices the history has sold at; null on " +
          "runs persisted before it existed.",
      ),
    explanation: explanationSchema
      .nullable()
      .optional()
      .describe(
        "Only with explain=true: why the price is what it is, as computed when the run was persisted; null on " +
          "runs persisted before explanations existed.",
      ),
  })
  .meta({
    id: "Recommendation",
    examples: [exampleRecommendation],
  });

export const runSchema = z
  .object({
    run_id: z.string(),
    company_id: companyIdSchema,
    kind: z.enum(["nightly", "on_demand"]),
    as_of: dateSchema,
    created_at: timestampSchema,
    source: sourceSchema,
    model_id: modelIdSchema.nullable(),
    start_date: dateSchema,
    end_date: dateSchema,
    products: z.number().int(),
    recommendation_count: z.number().int(),
  })
  .meta({
    id: "Run",
    examples: [exampleRun],
  });

export const getRecommendationsQuerySchema = z
  .strictObject({
    company_id: companyIdSchema,
    start_date: dateSchema.optional().describe("Inclusive lower bound of the date filter."),
    end_date: dateSchema.optional().describe("Inclusive upper bound of the date filter."),
    runs_ago: queryIntegerSchema({ min: 0, default: 0 }).describe(
      "0 is the latest run, 1 the run before it.",
    ),
    product_id: z.string().min(1).max(128).optional(),
    explain: queryBooleanSchema().describe(
      "true adds `explanation` to each item (stored with the run; the response has its own ETag).",
    ),
  })
  .superRefine(checkDateRange);

export const recommendationsResponseSchema = z
  .object({
    company_id: companyIdSchema,
    run: runSchema,
    recommendations: z.array(recommendationSchema),
  })
  .meta({
    id: "RecommendationsResponse",
    examples: [
      {
        company_id: "acme-eu",
        run: exampleRun,
        recommendations: [exampleRecommendation],
      },
    ],
  });

/**
 * The longest range a compute prices, and how far ahead of the company's today it may reach: a year, leap day
 * included. The range length is checked here; today is the company's (its time zone), so the service checks the
 * rest.
 */
export const COMPUTE_MAX_DAYS = 366;

const DAY_MS = 86_400_000;

function checkComputeRange(
  value: { start_date?: string | undefined; end_date?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  checkDateRange(value, ctx);
  if (value.start_date === undefined || value.end_date === undefined) return;
  const days = (Date.parse(value.end_date) - Date.parse(value.start_date)) / DAY_MS + 1;
  if (days > COMPUTE_MAX_DAYS) {
    ctx.addIssue({
      code: "custom",
      path: ["end_date"],
      message: `a computed range spans at most ${COMPUTE_MAX_DAYS} days`,
    });
  }
}

const computeDateBounds = `Not before the company's today (in its time zone) and at most ${COMPUTE_MAX_DAYS} days after it; the range spans at most ${COMPUTE_MAX_DAYS} days. Outside these bounds: 400 validation_error.`;

export const computeBodySchema = z
  .strictObject({
    company_id: companyIdSchema,
    dry_run: z.boolean().default(false).describe("Compute without persisting a run."),
    explain: z
      .boolean()
      .default(false)
      .describe("Adds `explanation` to each item (a persisted run stores them either way)."),
    start_date: dateSchema
      .optional()
      .describe(`First date priced; default the company's today. ${computeDateBounds}`),
    end_date: dateSchema
      .optional()
      .describe(`Last date priced; default start_date plus the server's run length. ${computeDateBounds}`),
  })
  .superRefine(checkComputeRange)
  .meta({ examples: [{ company_id: "acme-eu", dry_run: true }] });

export const computeResponseSchema = z
  .object({
    company_id: companyIdSchema,
    persisted: z.boolean(),
    run: runSchema.nullable().describe("The persisted run; null on a dry run."),
    source: sourceSchema,
    model_id: modelIdSchema.nullable(),
    recommendations: z.array(recommendationSchema),
  })
  .meta({
    id: "ComputeResponse",
    examples: [
      {
        company_id: "acme-eu",
        persisted: false,
        run: null,
        source: "approved",
        model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
        recommendations: [exampleRecommendation],
      },
    ],
  });

export type Recommendation = z.output<typeof recommendationSchema>;
export type Explanation = z.output<typeof explanationSchema>;
export type Run = z.output<typeof runSchema>;
export type GetRecommendationsQuery = z.output<typeof getRecommendationsQuerySchema>;
export type RecommendationsResponse = z.output<typeof recommendationsResponseSchema>;
export type ComputeRequest = z.output<typeof computeBodySchema>;
export type ComputeResponse = z.output<typeof computeResponseSchema>;
