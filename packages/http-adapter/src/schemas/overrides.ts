import { z } from "zod";
import {
  companyIdSchema,
  dateSchema,
  queryBooleanSchema,
  queryIntegerSchema,
  timestampSchema,
} from "./common.js";

/** The most overrides one bulk request creates (all or nothing). */
export const MAX_OVERRIDES_PER_REQUEST = 200;

const overrideFields = {
  product_id: z.string().min(1).max(128),
  start_date: dateSchema.describe("First date the override applies to; not before the company's today."),
  end_date: dateSchema.describe("Last date it applies to (inclusive)."),
  price: z
    .number()
    .positive()
    .optional()
    .describe("A pinned price: printable in the product's currency and endings, inside its guardrails."),
  min_price: z
    .number()
    .positive()
    .optional()
    .describe("A narrowing: the lowest price the engine may choose."),
  max_price: z
    .number()
    .positive()
    .optional()
    .describe("A narrowing: the highest price the engine may choose."),
  note: z.string().max(500).optional().describe("Free text for the partner's own records."),
};

type OverrideFields = {
  start_date: string;
  end_date: string;
  price?: number | undefined;
  min_price?: number | undefined;
  max_price?: number | undefined;
};

/** Dates in order; either a pin or a narrowing (at least one bound, min <= max), never both. */
function checkOverride(value: OverrideFields, ctx: z.RefinementCtx): void {
  if (value.start_date > value.end_date) {
    ctx.addIssue({ code: "custom", path: ["end_date"], message: "end_date must not be before start_date" });
  }
  const narrows = value.min_price !== undefined || value.max_price !== undefined;
  if (value.price !== undefined && narrows) {
    ctx.addIssue({ code: "custom", path: ["price"], message: "give price or min_price/max_price, not both" });
  }
  if (value.price === undefined && !narrows) {
    ctx.addIssue({ code: "custom", path: ["price"], message: "give price, or min_price and/or max_price" });
  }
  if (value.min_price !== undefined && value.max_price !== undefined && value.min_price > value.max_price) {
    ctx.addIssue({ code: "custom", path: ["max_price"], message: "max_price must not be below min_price" });
  }
}

export const overrideItemSchema = z.strictObject(overrideFields).superRefine(checkOverride);

export const createOverridesBodySchema = z
  .union([
    z.strictObject({ company_id: companyIdSchema, ...overrideFields }).superRefine(checkOverride),
    z.strictObject({
      company_id: companyIdSchema,
      overrides: z
        .array(overrideItemSchema)
        .min(1)
        .max(MAX_OVERRIDES_PER_REQUEST)
        .describe(`Up to ${MAX_OVERRIDES_PER_REQUEST} overrides, created all or nothing.`),
    }),
  ])
  .meta({
    examples: [
      {
        company_id: "acme-eu",
        product_id: "sku-1",
        start_date: "2026-11-27",
        end_date: "2026-11-29",
        price: 17.99,
      },
    ],
  });

export const createOverridesQuerySchema = z.strictObject({
  recompute: queryBooleanSchema().describe(
    "true also persists a fresh on-demand run that applies the overrides and returns its run_id.",
  ),
});

export const overrideSchema = z
  .object({
    override_id: z.string(),
    company_id: companyIdSchema,
    product_id: z.string(),
    start_date: dateSchema,
    end_date: dateSchema,
    price: z.number().nullable(),
    min_price: z.number().nullable(),
    max_price: z.number().nullable(),
    note: z.string().nullable(),
    created_at: timestampSchema,
  })
  .meta({
    id: "Override",
    examples: [
      {
        override_id: "ovr_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
        company_id: "acme-eu",
        product_id: "sku-1",
        start_date: "2026-11-27",
        end_date: "2026-11-29",
        price: 17.99,
        min_price: null,
        max_price: null,
        note: "printed in the weekly flyer",
        created_at: "2026-11-21T10:00:00.000Z",
      },
    ],
  });

export const createOverridesResponseSchema = z
  .object({
    overrides: z.array(overrideSchema),
    run_id: z
      .string()
      .nullable()
      .describe("With recompute=true, the on-demand run persisted after the overrides; null otherwise."),
  })
  .meta({ id: "CreateOverridesResponse" });

export const listOverridesQuerySchema = z.strictObject({
  company_id: companyIdSchema,
  product_id: z.string().min(1).max(128).optional(),
  limit: queryIntegerSchema({ min: 1, max: 100, default: 20 }),
  offset: queryIntegerSchema({ min: 0, default: 0 }),
});

export const listOverridesResponseSchema = z
  .object({
    company_id: companyIdSchema,
    total: z.number().int(),
    overrides: z.array(overrideSchema).describe("By product, then start date."),
  })
  .meta({ id: "OverridesResponse" });

export const deleteOverrideParamsSchema = z.strictObject({
  override_id: z
    .string()
    .min(1)
    .max(64)
    .meta({ examples: ["ovr_01JD2W5K3Q7Y8Z9A0B1C2D3E4F"] }),
});
export const deleteOverrideQuerySchema = z.strictObject({ company_id: companyIdSchema });

export type OverrideItem = z.output<typeof overrideItemSchema>;
export type CreateOverridesRequest = z.output<typeof createOverridesBodySchema>;
export type CreateOverridesQuery = z.output<typeof createOverridesQuerySchema>;
export type Override = z.output<typeof overrideSchema>;
export type CreateOverridesResponse = z.output<typeof createOverridesResponseSchema>;
export type ListOverridesQuery = z.output<typeof listOverridesQuerySchema>;
export type ListOverridesResponse = z.output<typeof listOverridesResponseSchema>;
export type DeleteOverrideInput = z.output<typeof deleteOverrideParamsSchema> &
  z.output<typeof deleteOverrideQuerySchema>;
