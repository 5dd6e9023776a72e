import { NoPrintablePriceError, parsePriceEndings, priceFormat, printableRange } from "@pricing/engine";
import { ApiError } from "@pricing/http-adapter";
import { z } from "zod";
import type { ServerContext } from "../context.js";
import { type CompanyEvent, type SettingsUpdate, settingsOf } from "../repositories/companies.js";
import { findCompany } from "./company-lookup.js";
import { validatedInput } from "./validated-input.js";

/**
 * A change of a company's settings (DESIGN §8, §10): the console's body and the CLI's flags both become this.
 * Strict: an unknown field is an error, never ignored.
 */
export const companySettingsChangeSchema = z
  .object({
    exploration: z.enum(["off", "cautious", "free"]).optional(),
    auto_approve_updates: z.boolean().optional(),
    force_rule: z.boolean().optional(),
    /** DESIGN §11: e.g. [".99"], [".49", ".99"]; [] clears (every minor unit printable). */
    price_endings: z
      .array(z.string())
      .max(10)
      .transform((endings, ctx) => {
        try {
          return parsePriceEndings(endings);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
          return z.NEVER;
        }
      })
      .optional(),
  })
  .strict()
  .refine((change) => Object.values(change).some((value) => value !== undefined), {
    message: "names no setting to change (exploration, auto_approve_updates, force_rule, price_endings)",
  });

export type CompanySettingsChange = z.infer<typeof companySettingsChangeSchema>;

/** A company's settings as the console and `pricing company show` report them, with its newest changes. */
export interface CompanySettingsReport {
  company_id: string;
  settings: ReturnType<typeof settingsOf>;
  /** Newest first. */
  events: CompanyEvent[];
  total_events: number;
}

/**
 * The one way a company's settings change, from the CLI (`by` "operator") or the console (`by` "console:<name>"):
 * validates the change (400 `validation_error`), 404 `company_not_found`, then sets the values and records each
 * one that changed in `company_events`, in one transaction. The next compute or nightly run uses them.
 */
export async function updateCompanySettings(
  ctx: ServerContext,
  companyId: string,
  change: unknown,
  by: string,
): Promise<SettingsUpdate> {
  const settings = validatedInput(companySettingsChangeSchema, change, "settings");
  if (settings.price_endings !== undefined) await checkPrintable(ctx, companyId, settings.price_endings);
  const update = await ctx.repositories.companies.update(companyId, settings, by);
  if (update === undefined) throw new ApiError("company_not_found");
  return update;
}

/** A company's current settings and its newest `limit` recorded changes. */
export async function companySettings(
  ctx: ServerContext,
  companyId: string,
  limit = 20,
): Promise<CompanySettingsReport> {
  const company = await findCompany(ctx, companyId);
  const { total, events } = await ctx.repositories.companies.events(companyId, limit);
  return { company_id: companyId, settings: settingsOf(company), events, total_events: total };
}

/**
 * Refuses company endings under which a product that takes them (one without its own) has no printable price
 * inside its guardrails (DESIGN §11), naming the product; import refuses the same of a product's own endings.
 */
async function checkPrintable(
  ctx: ServerContext,
  companyId: string,
  endings: readonly string[],
): Promise<void> {
  for (const p of await ctx.repositories.products.listByCompany(companyId)) {
    if (p.price_endings !== null) continue;
    try {
      printableRange(
        priceFormat(p.currency, endings),
        p.min_price ?? 0.5 * p.base_price,
        p.max_price ?? 2 * p.base_price,
      );
    } catch (error) {
      if (!(error instanceof NoPrintablePriceError)) throw error;
      throw new ApiError(
        "validation_error",
        `price_endings: product ${p.product_id} would have no printable price between its guardrails.`,
      );
    }
  }
}
