import {
  isKnownCurrency,
  NoPrintablePriceError,
  parsePriceEndings,
  priceFormat,
  printableRange,
} from "@pricing/engine";
import type { NewProductRow } from "../db/schema.js";
import { writeEndings } from "../repositories/price-endings-column.js";
import { readCsvRows } from "./csv-rows.js";
import type { FileIssues } from "./import-issues.js";
import { RowReader } from "./row-fields.js";

export const PRODUCT_COLUMNS = {
  required: ["product_id", "name", "currency", "base_price"],
  optional: [
    "unit_cost",
    "min_price",
    "max_price",
    "max_daily_change",
    "stock",
    "season_end",
    "price_endings",
  ],
} as const;

export const PRODUCT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export type ProductInput = Omit<NewProductRow, "company_id" | "updated_at">;

/**
 * Validates products.csv row by row, every issue to `issues`, not just the first. The valid rows are kept: a
 * catalogue's size, which the sales file's product ids are checked against anyway. A product whose guardrails
 * admit no printable price under its endings (its own `price_endings`, `;`-separated or `none`, else
 * `companyEndings`) is refused, naming it (DESIGN §11).
 */
export async function readProductsCsv(
  path: string,
  issues: FileIssues,
  companyEndings: readonly string[] | null = null,
): Promise<ProductInput[]> {
  const products: ProductInput[] = [];
  const seen = new Map<string, number>();
  for await (const row of readCsvRows(path, PRODUCT_COLUMNS, issues)) {
    const r = new RowReader(row, issues);
    const own = ownEndings(r);
    const product: ProductInput = {
      product_id: r.text("product_id", {
        required: true,
        max: 128,
        pattern: PRODUCT_ID_PATTERN,
        hint: "must be letters, digits, '_', '.', ':' or '-'",
      }),
      name: r.text("name", { required: true, max: 256 }),
      currency: r.text("currency", {
        required: true,
        pattern: /^[A-Z]{3}$/,
        hint: "must be an ISO 4217 code like EUR",
      }),
      base_price: r.number("base_price", { required: true, positive: true }),
      unit_cost: r.number("unit_cost", { min: 0 }),
      min_price: r.number("min_price", { positive: true }),
      max_price: r.number("max_price", { positive: true }),
      max_daily_change: r.number("max_daily_change", { positive: true }),
      stock: r.number("stock", { min: 0, integer: true }),
      season_end: r.date("season_end"),
      price_endings: writeEndings(own),
    };
    if (!r.failed && !isKnownCurrency(product.currency)) {
      r.fail("currency", `"${product.currency}" is not an ISO 4217 currency code this server knows`);
    }
    if (r.failed) continue;
    const min = product.min_price ?? product.base_price * 0.5;
    const max = product.max_price ?? product.base_price * 2;
    if (min > product.base_price) r.fail("min_price", "must not exceed base_price");
    if (max < product.base_price) r.fail("max_price", "must not be below base_price");
    const endings = own ?? companyEndings;
    if (!r.failed && endings !== null) {
      try {
        printableRange(priceFormat(product.currency, endings), min, max);
      } catch (error) {
        if (!(error instanceof NoPrintablePriceError)) throw error;
        r.fail(
          "price_endings",
          `product ${product.product_id}: no price ending in ${endings.join(" or ")} lies between its guardrails ${min} and ${max}`,
        );
      }
    }
    const firstLine = seen.get(product.product_id);
    if (firstLine !== undefined) r.fail("product_id", `duplicate of line ${firstLine}`);
    seen.set(product.product_id, row.line);
    if (!r.failed) products.push(product);
  }
  return products;
}

/** The row's own endings: null for an empty cell (the company's), [] for `none`, else the `;`-separated list. */
function ownEndings(r: RowReader): string[] | null {
  const cell = r.raw("price_endings")?.trim();
  if (cell === undefined || cell === "") return null;
  if (cell.toLowerCase() === "none") return [];
  try {
    return parsePriceEndings(cell.split(";"));
  } catch (error) {
    r.fail("price_endings", error instanceof Error ? error.message : String(error));
    return null;
  }
}
