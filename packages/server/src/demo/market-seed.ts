import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { addDays, generateMarket, type Market, type ScenarioInput } from "@pricing/engine";
import type { ServerContext } from "../context.js";
import { importCompanyData } from "../import/data-import.js";
import { PRODUCT_COLUMNS } from "../import/products-csv.js";
import { SALES_COLUMNS } from "../import/sales-csv.js";

export interface SeededCompany {
  companyId: string;
  products: number;
  salesRows: number;
  productsFile: string;
  salesFile: string;
}

function csvCell(value: string | number | null): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csv(header: readonly string[], rows: readonly (string | number | null)[][]): string {
  return `${[header.join(","), ...rows.map((r) => r.map(csvCell).join(","))].join("\n")}\n`;
}

/** The market's catalogue and history as the two CSV files `pricing data import` reads. */
export function marketCsv(market: Market, currency: string): { products: string; sales: string } {
  const start = market.scenario.start_date;
  const seasonEnd = addDays(start, market.scenario.horizon - 1);
  const products = csv(
    [...PRODUCT_COLUMNS.required, ...PRODUCT_COLUMNS.optional],
    market.products.map((p) => [
      p.productId,
      `Product ${p.productId}`,
      currency,
      p.referencePrice,
      p.unitCost,
      p.setup.minPrice,
      p.setup.maxPrice,
      p.setup.maxDailyChange,
      p.setup.stock,
      p.setup.stock === null ? null : seasonEnd,
      // price_endings: none of its own; the company's setting applies.
      null,
    ]),
  );
  const sales = csv(
    [...SALES_COLUMNS.required, ...SALES_COLUMNS.optional],
    market.history.map((r) => [
      r.date,
      r.product_id,
      r.price,
      r.units_sold,
      r.stock_on_hand,
      r.promoted ?? null,
    ]),
  );
  return { products, sales };
}

/**
 * Creates (if absent) a company and imports a synthetic market's products and sales history through the CSV
 * import, the path an operator uses. The files stay in `dir` as examples of the format.
 */
export async function seedCompanyFromMarket(
  ctx: ServerContext,
  input: {
    companyId: string;
    name: string;
    timezone: string;
    currency: string;
    scenario: ScenarioInput;
    dir: string;
  },
): Promise<SeededCompany> {
  const market = generateMarket(input.scenario);
  const files = marketCsv(market, input.currency);
  mkdirSync(input.dir, { recursive: true });
  const productsFile = join(input.dir, `${input.companyId}-products.csv`);
  const salesFile = join(input.dir, `${input.companyId}-sales.csv`);
  writeFileSync(productsFile, files.products);
  writeFileSync(salesFile, files.sales);
  await ctx.repositories.companies.create({
    company_id: input.companyId,
    name: input.name,
    timezone: input.timezone,
    currency: input.currency,
  });
  await importCompanyData(ctx.db, ctx.clock, { companyId: input.companyId, productsFile, salesFile });
  return {
    companyId: input.companyId,
    products: market.products.length,
    salesRows: market.history.length,
    productsFile,
    salesFile,
  };
}

/**
 * A synthetic company whose history ends yesterday (relative to `today`): `tightStock` gives every product a
 * stock of 60-80 % of its expected demand to sell by a season end `horizon` days away; otherwise stock is unlimited.
 */
export function demoScenario(options: {
  name: string;
  today: string;
  seed: number;
  products: number;
  tightStock: boolean;
  horizon?: number;
  historyDays?: number;
}): ScenarioInput {
  return {
    name: options.name,
    seed: options.seed,
    start_date: options.today,
    horizon: options.horizon ?? 42,
    history: { days: options.historyDays ?? 180, price_variation: 0.12, change_every_days: 7 },
    company: {
      count: options.products,
      id_prefix: "sku-",
      reference_price: [8, 60],
      base_rate: [2, 12],
      stock_ratio: options.tightStock ? [0.6, 0.8] : null,
    },
  };
}
