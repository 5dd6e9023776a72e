import type { CsvRow } from "./csv-rows.js";
import type { FileIssues } from "./import-issues.js";
import { RowReader } from "./row-fields.js";

/** promotions.csv: planned (or past) promotions; future dates allowed (DESIGN.md §9). */
export const PROMOTION_COLUMNS = {
  required: ["date", "product_id", "promoted"],
  optional: [],
} as const;

export interface PromotionInput {
  date: string;
  product_id: string;
  /** 0/1 or a share in [0, 1]. */
  promoted: number;
}

/** Validates one promotions.csv row as {@link saleFromRow} does a sale; null when the row is invalid. */
export function promotionFromRow(
  row: CsvRow,
  issues: FileIssues,
  knownProducts: ReadonlySet<string>,
): PromotionInput | null {
  const r = new RowReader(row, issues);
  const promotion: PromotionInput = {
    date: r.date("date", { required: true }),
    product_id: r.text("product_id", { required: true, max: 128 }),
    promoted: r.number("promoted", { required: true, min: 0, max: 1 }),
  };
  if (r.failed) return null;
  if (!knownProducts.has(promotion.product_id)) {
    r.fail("product_id", `unknown product "${promotion.product_id}"`);
    return null;
  }
  return promotion;
}
