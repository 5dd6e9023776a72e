import type { NewProductRow } from "../db/schema.js";
import { type ImportIssue, readCsvTable } from "./csv-table.js";
import { RowReader } from "./row-fields.js";

export const PRODUCT_COLUMNS = {
  required: ["product_id", "name", "currency", "base_price"],
  optional: ["unit_cost", "min_price", "max_price", "max_daily_change", "stock", "season_end"],
} as const;

export const PRODUCT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export type ProductInput = Omit<NewProductRow, "company_id" | "updated_at">;

/** Validates products.csv row by row; returns every issue found, not just the first. */
export function parseProductsCsv(
  file: string,
  text: string,
): { products: ProductInput[]; issues: ImportIssue[] } {
  const table = readCsvTable(file, text, PRODUCT_COLUMNS);
  const issues = [...table.issues];
  const products: ProductInput[] = [];
  const seen = new Map<string, number>();
  for (const row of table.rows) {
    const r = new RowReader(file, row, issues);
    const before = issues.length;
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
    };
    if (issues.length > before) continue;
    const min = product.min_price ?? product.base_price * 0.5;
    const max = product.max_price ?? product.base_price * 2;
    if (min > product.base_price) r.fail("min_price", "must not exceed base_price");
    if (max < product.base_price) r.fail("max_price", "must not be below base_price");
    const firstLine = seen.get(product.product_id);
    if (firstLine !== undefined) r.fail("product_id", `duplicate of line ${firstLine}`);
    seen.set(product.product_id, row.line);
    if (issues.length === before) products.push(product);
  }
  return { products, issues };
}
