import { z } from "zod";

function isCalendarDate(value: string): boolean {
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** A calendar date `YYYY-MM-DD`. */
export const dateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine(isCalendarDate, "must be a valid calendar date")
  .meta({ format: "date", examples: ["2026-11-21"] });

const DECIMAL_DIGITS = /^\d{1,15}$/;
/** The largest value `DECIMAL_DIGITS` reads, stated as the schema's maximum so the OpenAPI says what is refused. */
const LARGEST_DECIMAL = 10 ** 15 - 1;

/**
 * A whole-number query parameter, read strictly: only decimal digits, so `0x10`, `1e1` or ` 5` are refused rather
 * than coerced to 16, 10 or 5 as `Number()` would.
 */
export function queryIntegerSchema(bounds: { min: number; max?: number; default: number }) {
  const inner = z
    .number({ error: "must be a whole number written in decimal digits" })
    .int()
    .min(bounds.min)
    .max(bounds.max ?? LARGEST_DECIMAL);
  return z.preprocess(
    (value) => (typeof value === "string" && DECIMAL_DIGITS.test(value) ? Number(value) : value),
    inner.default(bounds.default),
  );
}

/** A flag query parameter: exactly `true` or `false` (anything else is refused, not read as truthy). */
export function queryBooleanSchema() {
  return z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((value) => value === "true");
}

/** An RFC 3339 UTC timestamp. */
export const timestampSchema = z.iso.datetime().meta({ examples: ["2026-11-21T02:00:00.000Z"] });

export const companyIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "must be letters, digits, '_', '.' or '-'")
  .describe("Target company; only companies mapped to the partner are reachable.")
  .meta({ examples: ["acme-eu"] });

export const modelIdSchema = z
  .string()
  .min(1)
  .max(128)
  .meta({ examples: ["mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F"] });

export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code")
  .meta({ examples: ["EUR"] });

export const sourceSchema = z.enum(["approved", "latest", "rule"]).describe("What backs inference.");

/** Rejects `start_date > end_date`, naming the field. */
export function checkDateRange(
  value: { start_date?: string | undefined; end_date?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (value.start_date !== undefined && value.end_date !== undefined && value.start_date > value.end_date) {
    ctx.addIssue({ code: "custom", path: ["start_date"], message: "must not be after end_date" });
  }
}
