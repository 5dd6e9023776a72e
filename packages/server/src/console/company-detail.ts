import { addDays } from "@pricing/engine";
import type { Recommendation, Run } from "@pricing/http-adapter";
import { ApiError } from "@pricing/http-adapter";
import type { ServerContext } from "../context.js";
import type { CompanyRow, OverrideRow, RunRow } from "../db/schema.js";
import type { CatalogRow } from "../repositories/products.js";
import { toRun } from "../repositories/runs.js";
import { findCompany } from "../services/company-lookup.js";
import { type CompanySettingsReport, companySettings } from "../services/company-settings.js";
import { companyToday } from "../services/company-today.js";

/** Days of sales history the price path shows before the company's today. */
export const PATH_HISTORY_DAYS = 120;

/** One day of the latest run for one product, as the price path draws it. */
export interface PathDay {
  date: string;
  price: number;
  rule_price: number;
  expected_units: number;
  expected_units_p10: number | null;
  expected_units_p90: number | null;
  exploratory: boolean | null;
  /** What held the price where it is (the run's stored explanation); null when nothing did or none was stored. */
  binding: string | null;
  /** `override` where a partner's pin priced the day, else the run's source. */
  source: Recommendation["source"];
  /** The override in force on the day when the run was computed (a pin or a narrowing), else null. */
  override_id: string | null;
  /** The lowest price of the 30 days before (DESIGN §11); null where none is known or the run predates it. */
  lowest_price_30d: number | null;
}

/** A partner's override of the product that meets the chart's dates, as stored now (DESIGN §11). */
export type PathOverride = Pick<
  OverrideRow,
  "override_id" | "start_date" | "end_date" | "price" | "min_price" | "max_price" | "note"
>;

/**
 * One product's price path: its sales history (actual prices and units) up to yesterday, then the latest run's
 * recommended prices beside the rule's with the p10-p90 units band and each day's `lowest_price_30d`, and the
 * product's overrides over those dates (stored now: one made after the run shows before a run uses it).
 */
export interface PricePath {
  product_id: string;
  name: string | null;
  currency: string;
  base_price: number;
  unit_cost: number;
  min_price: number | null;
  max_price: number | null;
  history: { date: string; price: number; units_sold: number }[];
  run: PathDay[];
  overrides: PathOverride[];
}

export interface CompanyDetail {
  company: Pick<CompanyRow, "company_id" | "name" | "timezone" | "currency"> & { today: string };
  settings: CompanySettingsReport;
  products: { product_id: string; name: string | null }[];
  /** The product shown (the one asked for, else the first); null for a company without products. */
  product_id: string | null;
  /** The company's newest persisted run; null before its first. */
  run: Run | null;
  price_path: PricePath | null;
}

/** The `product` query parameter of the company page and its JSON, when given. */
export function requestedProduct(query: unknown): string | undefined {
  const product = (query as Record<string, unknown> | undefined)?.product;
  return typeof product === "string" && product !== "" ? product : undefined;
}

function pathDay(item: Recommendation): PathDay {
  return {
    date: item.date,
    price: item.price,
    rule_price: item.rule_price,
    expected_units: item.expected_units,
    expected_units_p10: item.expected_units_p10,
    expected_units_p90: item.expected_units_p90,
    exploratory: item.exploratory,
    binding: item.explanation?.binding ?? null,
    source: item.source,
    override_id: item.override_id,
    lowest_price_30d: item.lowest_price_30d,
  };
}

async function pricePath(
  ctx: ServerContext,
  company: CompanyRow,
  product: CatalogRow,
  today: string,
  run: RunRow | undefined,
): Promise<PricePath> {
  const from = addDays(today, -PATH_HISTORY_DAYS);
  const [sales, items, overrides] = await Promise.all([
    ctx.repositories.sales.list({
      companyId: company.company_id,
      productId: product.product_id,
      from,
      to: addDays(today, -1),
    }),
    run === undefined
      ? Promise.resolve([])
      : ctx.repositories.runs.recommendations(run.run_id, { productId: product.product_id, explain: true }),
    ctx.repositories.overrides.overlapping(
      company.company_id,
      product.product_id,
      from,
      run === undefined || run.end_date < today ? today : run.end_date,
    ),
  ]);
  return {
    product_id: product.product_id,
    name: product.name,
    currency: product.currency,
    base_price: product.base_price,
    unit_cost: product.unit_cost ?? 0,
    min_price: product.min_price,
    max_price: product.max_price,
    history: sales.map((s) => ({ date: s.date, price: s.price, units_sold: s.units_sold })),
    run: items.map(pathDay),
    // Field by field: the console shows what it names, never a column added to the table later.
    overrides: overrides.map(
      (o): PathOverride => ({
        override_id: o.override_id,
        start_date: o.start_date,
        end_date: o.end_date,
        price: o.price,
        min_price: o.min_price,
        max_price: o.max_price,
        note: o.note,
      }),
    ),
  };
}

/**
 * What the company page shows: the company, its settings and their recorded changes, its products, its newest run
 * and one product's price path. 404 `company_not_found`, and `not_found` for a product the company does not have.
 */
export async function companyDetail(
  ctx: ServerContext,
  companyId: string,
  productId?: string,
): Promise<CompanyDetail> {
  const company = await findCompany(ctx, companyId);
  const today = companyToday(ctx.clock(), company.timezone);
  const [settings, products, runRow] = await Promise.all([
    companySettings(ctx, companyId),
    ctx.repositories.products.listByCompany(companyId),
    ctx.repositories.runs.atOffset(companyId, 0),
  ]);
  const product = productId === undefined ? products[0] : products.find((p) => p.product_id === productId);
  if (product === undefined && productId !== undefined) {
    throw new ApiError("not_found", `Company ${companyId} has no product ${productId}.`);
  }
  return {
    company: {
      company_id: company.company_id,
      name: company.name,
      timezone: company.timezone,
      currency: company.currency,
      today,
    },
    settings,
    products: products.map((p) => ({ product_id: p.product_id, name: p.name })),
    product_id: product?.product_id ?? null,
    run: runRow === undefined ? null : toRun(runRow),
    price_path: product === undefined ? null : await pricePath(ctx, company, product, today, runRow),
  };
}
