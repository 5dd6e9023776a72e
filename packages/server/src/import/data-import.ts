import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import type { ImportIssue } from "./csv-table.js";
import { type ProductInput, parseProductsCsv } from "./products-csv.js";
import { parseSalesCsv, type SalesInput } from "./sales-csv.js";

export interface ImportCounts {
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

export interface ImportReport {
  company_id: string;
  products: ImportCounts | null;
  sales: ImportCounts | null;
}

/** Validation failed; nothing was written. */
export class ImportValidationError extends Error {
  constructor(readonly issues: ImportIssue[]) {
    super(
      `import rejected: ${issues.length} invalid ${issues.length === 1 ? "value" : "values"}; nothing was written`,
    );
    this.name = "ImportValidationError";
  }
}

export function formatIssue(issue: ImportIssue): string {
  return `${issue.file}:${issue.line}${issue.column ? ` column ${issue.column}` : ""}: ${issue.message}`;
}

export interface DataImportRequest {
  companyId: string;
  productsFile?: string | undefined;
  salesFile?: string | undefined;
}

const PRODUCT_FIELDS = [
  "name",
  "currency",
  "base_price",
  "unit_cost",
  "min_price",
  "max_price",
  "max_daily_change",
  "stock",
  "season_end",
] as const;
const SALES_FIELDS = ["price", "units_sold", "stock_on_hand"] as const;
const CHUNK = 400;

function sameFields<T>(a: T, b: T, fields: readonly (keyof T)[]): boolean {
  return fields.every((f) => (a[f] ?? null) === (b[f] ?? null));
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Imports products and/or sales for one company: every row is validated first, then all changed rows are written
 * in one transaction, so a bad row anywhere writes nothing and re-importing the same rows changes nothing.
 */
export async function importCompanyData(
  db: Db,
  clock: Clock,
  request: DataImportRequest,
): Promise<ImportReport> {
  const company = await db
    .selectFrom("companies")
    .select("company_id")
    .where("company_id", "=", request.companyId)
    .executeTakeFirst();
  if (!company)
    throw new Error(`company "${request.companyId}" does not exist; create it with: pricing company create`);
  if (!request.productsFile && !request.salesFile)
    throw new Error("nothing to import: pass --products and/or --sales");

  const issues: ImportIssue[] = [];
  let products: ProductInput[] | null = null;
  if (request.productsFile) {
    const parsed = parseProductsCsv(
      basename(request.productsFile),
      await readFile(request.productsFile, "utf8"),
    );
    issues.push(...parsed.issues);
    products = parsed.products;
  }
  const existingProducts = await db
    .selectFrom("products")
    .selectAll()
    .where("company_id", "=", request.companyId)
    .execute();
  let sales: SalesInput[] | null = null;
  if (request.salesFile) {
    const known = new Set([
      ...existingProducts.map((p) => p.product_id),
      ...(products ?? []).map((p) => p.product_id),
    ]);
    const parsed = parseSalesCsv(
      basename(request.salesFile),
      await readFile(request.salesFile, "utf8"),
      known,
    );
    issues.push(...parsed.issues);
    sales = parsed.sales;
  }
  if (issues.length > 0) throw new ImportValidationError(issues);

  const report: ImportReport = { company_id: request.companyId, products: null, sales: null };
  const now = clock().toISOString();
  await db.transaction().execute(async (trx) => {
    if (products) {
      const current = new Map(existingProducts.map((p) => [p.product_id, p]));
      const changed = products.filter((p) => {
        const old = current.get(p.product_id);
        return !old || !sameFields<ProductInput>(old, p, PRODUCT_FIELDS);
      });
      for (const batch of chunks(changed)) {
        await trx
          .insertInto("products")
          .values(batch.map((p) => ({ ...p, company_id: request.companyId, updated_at: now })))
          .onConflict((oc) =>
            oc.columns(["company_id", "product_id"]).doUpdateSet((eb) => ({
              name: eb.ref("excluded.name"),
              currency: eb.ref("excluded.currency"),
              base_price: eb.ref("excluded.base_price"),
              unit_cost: eb.ref("excluded.unit_cost"),
              min_price: eb.ref("excluded.min_price"),
              max_price: eb.ref("excluded.max_price"),
              max_daily_change: eb.ref("excluded.max_daily_change"),
              stock: eb.ref("excluded.stock"),
              season_end: eb.ref("excluded.season_end"),
              updated_at: eb.ref("excluded.updated_at"),
            })),
          )
          .execute();
      }
      const inserted = changed.filter((p) => !current.has(p.product_id)).length;
      report.products = {
        rows: products.length,
        inserted,
        updated: changed.length - inserted,
        unchanged: products.length - changed.length,
      };
    }
    if (sales) {
      const existing = await trx
        .selectFrom("sales")
        .select(["product_id", "date", "price", "units_sold", "stock_on_hand"])
        .where("company_id", "=", request.companyId)
        .execute();
      const current = new Map(existing.map((s) => [`${s.product_id}\u0000${s.date}`, s]));
      const changed = sales.filter((s) => {
        const old = current.get(`${s.product_id}\u0000${s.date}`);
        return !old || !sameFields<SalesInput>({ ...old }, s, SALES_FIELDS);
      });
      for (const batch of chunks(changed)) {
        await trx
          .insertInto("sales")
          .values(batch.map((s) => ({ ...s, company_id: request.companyId })))
          .onConflict((oc) =>
            oc.columns(["company_id", "product_id", "date"]).doUpdateSet((eb) => ({
              price: eb.ref("excluded.price"),
              units_sold: eb.ref("excluded.units_sold"),
              stock_on_hand: eb.ref("excluded.stock_on_hand"),
            })),
          )
          .execute();
      }
      const inserted = changed.filter((s) => !current.has(`${s.product_id}\u0000${s.date}`)).length;
      report.sales = {
        rows: sales.length,
        inserted,
        updated: changed.length - inserted,
        unchanged: sales.length - changed.length,
      };
    }
  });
  return report;
}
