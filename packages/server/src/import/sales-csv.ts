import type { CsvRow } from "./csv-rows.js";
import type { FileIssues } from "./import-issues.js";
import { RowReader } from "./row-fields.js";

export const SALES_COLUMNS = {
  required: ["date", "product_id", "price", "units_sold"],
  optional: ["stock_on_hand", "promoted"],
} as const;

/** One sales.csv row, validated; `promoted` is 0 where the file gave none. */
export interface SalesInput {
  date: string;
  product_id: string;
  price: number;
  units_sold: number;
  stock_on_hand: number | null;
  promoted: number;
}

/**
 * Validates one sales.csv row, each bad cell an issue. `knownProducts` are the product ids the company will have
 * after the import; a sale of any other product is an error on its row. Null when the row is invalid. Duplicate
 * rows (same product and date) are found where the rows are staged.
 */
export function saleFromRow(
  row: CsvRow,
  issues: FileIssues,
  knownProducts: ReadonlySet<string>,
): SalesInput | null {
  const r = new RowReader(row, issues);
  const sale: SalesInput = {
    date: r.date("date", { required: true }),
    product_id: r.text("product_id", { required: true, max: 128 }),
    price: r.number("price", { required: true, positive: true }),
    units_sold: r.number("units_sold", { required: true, min: 0, integer: true }),
    stock_on_hand: r.number("stock_on_hand", { min: 0, integer: true }),
    promoted: r.number("promoted", { min: 0, max: 1 }) ?? 0,
  };
  if (r.failed) return null;
  if (!knownProducts.has(sale.product_id)) {
    r.fail("product_id", `unknown product "${sale.product_id}"`);
    return null;
  }
  return sale;
}
