import {
  type CatalogProduct,
  isPrintable,
  priceFormat,
  printableAtOrAbove,
  printableAtOrBelow,
  productGuardrails,
} from "@pricing/engine";
import {
  ApiError,
  type CreateOverridesQuery,
  type CreateOverridesRequest,
  type CreateOverridesResponse,
  type DeleteOverrideInput,
  type ListOverridesQuery,
  type ListOverridesResponse,
  type Override,
  type OverrideItem,
} from "@pricing/http-adapter";
import { ulid } from "ulid";
import type { ServerContext } from "../context.js";
import type { OverrideRow } from "../db/schema.js";
import { findCompany } from "./company-lookup.js";
import { persistPlan, planCompany } from "./company-plan.js";
import { catalogProducts } from "./company-snapshot.js";
import { companyToday } from "./company-today.js";

function toOverride(row: OverrideRow): Override {
  const { created_by: _, ...rest } = row;
  return rest;
}

/**
 * Refuses an override its product cannot take (DESIGN §11), naming it by `where` (the field path of the request):
 * a date before the company's today (400), an unknown product (400), a price or bound outside the guardrails (422
 * `override_outside_guardrails`), a pin that is not printable in the product's currency and endings or a narrowing
 * with no printable price inside (422 `override_not_printable`).
 */
function checkOverride(
  item: OverrideItem,
  where: string,
  today: string,
  product: CatalogProduct | undefined,
): void {
  if (item.start_date < today) {
    throw new ApiError(
      "validation_error",
      `${where}start_date must not be before the company's today (${today}).`,
    );
  }
  if (product === undefined) {
    throw new ApiError(
      "validation_error",
      `${where}product_id: the company has no product "${item.product_id}".`,
    );
  }
  const { minPrice, maxPrice } = productGuardrails(product);
  const format = priceFormat(product.currency, product.price_endings);
  for (const field of ["price", "min_price", "max_price"] as const) {
    const value = item[field];
    if (value !== undefined && (value < minPrice - 1e-9 || value > maxPrice + 1e-9)) {
      throw new ApiError(
        "override_outside_guardrails",
        `${where}${field} ${value} lies outside product ${product.product_id}'s guardrails ${minPrice} .. ${maxPrice}.`,
      );
    }
  }
  const printable = product.price_endings?.length ? ` ending in ${product.price_endings.join(" or ")}` : "";
  if (item.price !== undefined && !isPrintable(format, item.price)) {
    throw new ApiError(
      "override_not_printable",
      `${where}price ${item.price} is not a printable ${product.currency} price${printable}.`,
    );
  }
  if (item.price === undefined) {
    const lo = printableAtOrAbove(format, item.min_price ?? minPrice);
    const hi = printableAtOrBelow(format, item.max_price ?? maxPrice);
    if (hi === null || lo > hi + 1e-9) {
      throw new ApiError(
        "override_not_printable",
        `${where}no printable ${product.currency} price${printable} lies between min_price and max_price.`,
      );
    }
  }
}

/**
 * `POST /v2/overrides`: creates one override or a list of them, all or nothing, by `partnerId`; with `recompute`
 * also persists an on-demand run that applies them (its `recommendations.updated` webhook included).
 */
export async function createOverrides(
  ctx: ServerContext,
  input: CreateOverridesRequest,
  query: CreateOverridesQuery,
  partnerId: string,
): Promise<CreateOverridesResponse> {
  const company = await findCompany(ctx, input.company_id);
  const bulk = "overrides" in input;
  const items: OverrideItem[] = bulk
    ? input.overrides
    : [
        {
          product_id: input.product_id,
          start_date: input.start_date,
          end_date: input.end_date,
          ...(input.price === undefined ? {} : { price: input.price }),
          ...(input.min_price === undefined ? {} : { min_price: input.min_price }),
          ...(input.max_price === undefined ? {} : { max_price: input.max_price }),
          ...(input.note === undefined ? {} : { note: input.note }),
        },
      ];
  const today = companyToday(ctx.clock(), company.timezone);
  const products = new Map(
    catalogProducts(company, await ctx.repositories.products.listByCompany(company.company_id)).map((p) => [
      p.product_id,
      p,
    ]),
  );
  const createdAt = ctx.clock().toISOString();
  const rows = items.map((item, i): OverrideRow => {
    checkOverride(item, bulk ? `overrides[${i}].` : "", today, products.get(item.product_id));
    return {
      override_id: `ovr_${ulid()}`,
      company_id: company.company_id,
      product_id: item.product_id,
      start_date: item.start_date,
      end_date: item.end_date,
      price: item.price ?? null,
      min_price: item.price === undefined ? (item.min_price ?? null) : null,
      max_price: item.price === undefined ? (item.max_price ?? null) : null,
      note: item.note ?? null,
      created_at: createdAt,
      created_by: partnerId,
    };
  });
  const overlap = await ctx.repositories.overrides.createAll(rows);
  if (overlap !== null) {
    throw new ApiError(
      "override_overlap",
      overlap.override_id === null
        ? `Two overrides of product ${overlap.product_id} in this request overlap.`
        : `The override of product ${overlap.product_id} overlaps override ${overlap.override_id}; remove it first.`,
    );
  }
  let runId: string | null = null;
  if (query.recompute) {
    const plan = await planCompany(ctx, company, { explain: true });
    runId = (await persistPlan(ctx, plan, "on_demand"))?.run_id ?? null;
  }
  return { overrides: rows.map(toOverride), run_id: runId };
}

/** `GET /v2/overrides`. */
export async function listOverrides(
  ctx: ServerContext,
  input: ListOverridesQuery,
): Promise<ListOverridesResponse> {
  const company = await findCompany(ctx, input.company_id);
  const { total, overrides } = await ctx.repositories.overrides.list(company.company_id, {
    productId: input.product_id,
    limit: input.limit,
    offset: input.offset,
  });
  return { company_id: company.company_id, total, overrides: overrides.map(toOverride) };
}

/** `DELETE /v2/overrides/{override_id}`: 404 `override_not_found` for an id the company does not have. */
export async function deleteOverride(ctx: ServerContext, input: DeleteOverrideInput): Promise<void> {
  const company = await findCompany(ctx, input.company_id);
  if (!(await ctx.repositories.overrides.remove(company.company_id, input.override_id))) {
    throw new ApiError("override_not_found");
  }
}
