import type { SalesRow } from "../db/schema.js";
import { type ImportIssue, readCsvTable } from "./csv-table.js";
import { RowReader } from "./row-fields.js";

export const SALES_COLUMNS = {
  required: ["date", "product_id", "price", "units_sold"],
  optional: ["stock_on_hand"],
} as const;

export type SalesInput = Omit<SalesRow, "company_id">;

/**
 * Validates sales.csv row by row. `knownProducts` are the product ids the company will have after the import;
 * a sale of any other product is an error on its row.
 */
export function parseSalesCsv(
  file: string,
  text: string,
  knownProducts: ReadonlySet<string>,
): { sales: SalesInput[]; issues: ImportIssue[] } {
  const table = readCsvTable(file, text, SALES_COLUMNS);
  const issues = [...table.issues];
  const sales: SalesInput[] = [];
  const seen = new Map<string, number>();
  for (const row of table.rows) {
    const r = new RowReader(file, row, issues);
    const before = issues.length;
    const sale: SalesInput = {
      date: r.date("date", { required: true }),
      product_id: r.text("product_id", { required: true, max: 128 }),
      price: r.number("price", { required: true, positive: true }),
      units_sold: r.number("units_sold", { required: true, min: 0, integer: true }),
      stock_on_hand: r.number("stock_on_hand", { min: 0, integer: true }),
    };
    if (issues.length > before) continue;
    if (!knownProducts.has(sale.product_id)) r.fail("product_id", `unknown product "${sale.product_id}"`);
    const key = `${sale.product_id}\u0000${sale.date}`;
    const firstLine = seen.get(key);
    if (firstLine !== undefined) r.fail("date", `duplicate of line ${firstLine} (same product and date)`);
    seen.set(key, row.line);
    if (issues.length === before) sales.push(sale);
  }
  return { sales, issues };
}
