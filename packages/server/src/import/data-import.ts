import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { sql } from "kysely";
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
/**
 * Rows staged per transaction. Staging writes a temporary table (SQLite keeps it outside the database file, so it
 * takes no lock other processes see; PostgreSQL keeps it per session), in transactions this size, so memory and
 * the work per commit stay bounded whatever the file's size.
 */
export const STAGE_ROWS_PER_TRANSACTION = 5000;
const STAGE_TABLE = "import_sales_stage";

type StageTables = { [STAGE_TABLE]: SalesInput };

function sameFields<T>(a: T, b: T, fields: readonly (keyof T)[]): boolean {
  return fields.every((f) => (a[f] ?? null) === (b[f] ?? null));
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Imports products and/or sales for one company: every row is validated first; the changed sales rows are staged
 * in bounded transactions, then one short transaction upserts the changed products and moves the staged sales
 * into `sales` (a single INSERT ... SELECT), so a bad row anywhere writes nothing, readers never see half an
 * import, the database's write lock is held only for that last statement, and re-importing the same rows changes
 * nothing.
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
  const changedProducts = products === null ? [] : changedProductRows(products, existingProducts);
  if (products) {
    const current = new Set(existingProducts.map((p) => p.product_id));
    const inserted = changedProducts.filter((p) => !current.has(p.product_id)).length;
    report.products = {
      rows: products.length,
      inserted,
      updated: changedProducts.length - inserted,
      unchanged: products.length - changedProducts.length,
    };
  }
  let changedSales: SalesInput[] = [];
  if (sales) {
    const existing = await db
      .selectFrom("sales")
      .select(["product_id", "date", "price", "units_sold", "stock_on_hand"])
      .where("company_id", "=", request.companyId)
      .execute();
    const current = new Map(existing.map((s) => [`${s.product_id}\u0000${s.date}`, s]));
    changedSales = sales.filter((s) => {
      const old = current.get(`${s.product_id}\u0000${s.date}`);
      return !old || !sameFields<SalesInput>({ ...old }, s, SALES_FIELDS);
    });
    const inserted = changedSales.filter((s) => !current.has(`${s.product_id}\u0000${s.date}`)).length;
    report.sales = {
      rows: sales.length,
      inserted,
      updated: changedSales.length - inserted,
      unchanged: sales.length - changedSales.length,
    };
  }
  if (changedProducts.length === 0 && changedSales.length === 0) return report;

  // One connection throughout: PostgreSQL's temporary table lives in its session.
  await db.connection().execute(async (connection) => {
    const conn = connection.withTables<StageTables>();
    if (changedSales.length > 0) {
      await sql`drop table if exists ${sql.table(STAGE_TABLE)}`.execute(conn);
      await sql`create temporary table ${sql.table(STAGE_TABLE)} (
        product_id text not null, date text not null, price double precision not null,
        units_sold integer not null, stock_on_hand integer)`.execute(conn);
    }
    try {
      for (let i = 0; i < changedSales.length; i += STAGE_ROWS_PER_TRANSACTION) {
        const part = changedSales.slice(i, i + STAGE_ROWS_PER_TRANSACTION);
        await conn.transaction().execute(async (trx) => {
          for (const batch of chunks(part)) await trx.insertInto(STAGE_TABLE).values(batch).execute();
        });
      }
      await conn.transaction().execute(async (trx) => {
        for (const batch of chunks(changedProducts)) {
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
        if (changedSales.length === 0) return;
        // `where true`: SQLite's parser needs it between a SELECT and ON CONFLICT; PostgreSQL accepts it.
        await sql`insert into sales (company_id, product_id, date, price, units_sold, stock_on_hand)
          select ${request.companyId}, product_id, date, price, units_sold, stock_on_hand
          from ${sql.table(STAGE_TABLE)} where true
          on conflict (company_id, product_id, date) do update set
            price = excluded.price, units_sold = excluded.units_sold, stock_on_hand = excluded.stock_on_hand`.execute(
          trx,
        );
      });
    } finally {
      if (changedSales.length > 0) await sql`drop table if exists ${sql.table(STAGE_TABLE)}`.execute(conn);
    }
  });
  return report;
}

function changedProductRows(
  products: readonly ProductInput[],
  existing: readonly (ProductInput & { product_id: string })[],
): ProductInput[] {
  const current = new Map(existing.map((p) => [p.product_id, p]));
  return products.filter((p) => {
    const old = current.get(p.product_id);
    return !old || !sameFields<ProductInput>(old, p, PRODUCT_FIELDS);
  });
}
