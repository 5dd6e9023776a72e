import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import { readEndings } from "../repositories/price-endings-column.js";
import type { CsvColumns, CsvRow } from "./csv-rows.js";
import { readCsvRows } from "./csv-rows.js";
import { FileIssues, type ImportIssue, MAX_KEPT_ISSUES } from "./import-issues.js";
import { type ProductInput, readProductsCsv } from "./products-csv.js";
import { PROMOTION_COLUMNS, type PromotionInput, promotionFromRow } from "./promotions-csv.js";
import { SALES_COLUMNS, type SalesInput, saleFromRow } from "./sales-csv.js";
import { type StagedCounts, type StagedKey, StagedRows, type StagedTarget } from "./staged-rows.js";

export type ImportCounts = StagedCounts;

export interface ImportReport {
  company_id: string;
  products: ImportCounts | null;
  sales: ImportCounts | null;
  promotions: ImportCounts | null;
}

/** Validation failed; nothing was written. */
export class ImportValidationError extends Error {
  /**
   * @param issues the first issues of each file, in file then line order
   * @param count every issue found
   */
  constructor(
    readonly issues: readonly ImportIssue[],
    readonly count: number = issues.length,
  ) {
    super(`import rejected: ${count} invalid ${count === 1 ? "value" : "values"}; nothing was written`);
    this.name = "ImportValidationError";
  }
}

export function formatIssue(issue: ImportIssue): string {
  return `${issue.file}:${issue.line}${issue.column ? ` column ${issue.column}` : ""}: ${issue.message}`;
}

/** Where an import is, for a progress line: rows read (and bytes of the file) of `file`, then the database's steps. */
export type ImportProgress =
  | { step: "reading"; file: string; rows: number; bytesRead: number; bytesTotal: number }
  | { step: "checking" | "writing"; file: string | null; rows: number };

export interface DataImportRequest {
  companyId: string;
  productsFile?: string | undefined;
  salesFile?: string | undefined;
  /** Planned promotions, `date,product_id,promoted` (DESIGN.md §9). */
  promotionsFile?: string | undefined;
  onProgress?: (progress: ImportProgress) => void;
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
  "price_endings",
] as const;
/** Products upserted per statement. */
const PRODUCTS_PER_INSERT = 400;
/** Rows read between two progress reports. */
const PROGRESS_EVERY_ROWS = 10_000;

const SALES_TARGET: StagedTarget<SalesInput> = {
  table: "sales",
  values: [
    { name: "price", type: "double precision not null" },
    { name: "units_sold", type: "integer not null" },
    { name: "stock_on_hand", type: "integer" },
    { name: "promoted", type: "double precision not null" },
  ],
};
const PROMOTIONS_TARGET: StagedTarget<PromotionInput> = {
  table: "promotions",
  values: [{ name: "promoted", type: "double precision not null" }],
};

/** A keyed file of the import: how to read it and where its rows go. */
interface KeyedFile<Row extends StagedKey> {
  path: string;
  columns: CsvColumns;
  target: StagedTarget<Row>;
  validate(row: CsvRow, issues: FileIssues, knownProducts: ReadonlySet<string>): Row | null;
}

/**
 * Imports products, sales and/or planned promotions for one company, streaming: a file is read one record at a time
 * and its valid rows staged in a temporary table, so memory stays bounded whatever the files' sizes (products are
 * kept: the catalogue). Every row is validated first and a bad row anywhere writes nothing. Then one short
 * transaction upserts the changed products and moves the staged new and changed rows into `sales` and
 * `promotions` (one INSERT ... SELECT each), so readers never see half an import, the database's write lock is held
 * only for that, and re-importing the same rows changes nothing.
 */
export async function importCompanyData(
  db: Db,
  clock: Clock,
  request: DataImportRequest,
): Promise<ImportReport> {
  const company = await db
    .selectFrom("companies")
    .select(["company_id", "price_endings"])
    .where("company_id", "=", request.companyId)
    .executeTakeFirst();
  if (!company)
    throw new Error(`company "${request.companyId}" does not exist; create it with: pricing company create`);
  if (!request.productsFile && !request.salesFile && !request.promotionsFile)
    throw new Error("nothing to import: pass --products, --sales and/or --promotions");
  // A missing file fails here, before anything is read.
  const files = [request.productsFile, request.salesFile, request.promotionsFile].filter(
    (f) => f !== undefined,
  );
  const sizes = new Map(await Promise.all(files.map(async (f) => [f, (await stat(f)).size] as const)));
  const progress = request.onProgress ?? (() => undefined);

  const issues: FileIssues[] = [];
  let products: ProductInput[] | null = null;
  if (request.productsFile) {
    const productIssues = new FileIssues(basename(request.productsFile));
    issues.push(productIssues);
    products = await readProductsCsv(request.productsFile, productIssues, readEndings(company.price_endings));
  }
  const existingProducts = await db
    .selectFrom("products")
    .selectAll()
    .where("company_id", "=", request.companyId)
    .execute();
  const knownProducts = new Set([
    ...existingProducts.map((p) => p.product_id),
    ...(products ?? []).map((p) => p.product_id),
  ]);
  const keyed: { file: KeyedFile<SalesInput> | KeyedFile<PromotionInput>; name: "sales" | "promotions" }[] =
    [];
  if (request.salesFile) {
    keyed.push({
      name: "sales",
      file: { path: request.salesFile, columns: SALES_COLUMNS, target: SALES_TARGET, validate: saleFromRow },
    });
  }
  if (request.promotionsFile) {
    keyed.push({
      name: "promotions",
      file: {
        path: request.promotionsFile,
        columns: PROMOTION_COLUMNS,
        target: PROMOTIONS_TARGET,
        validate: promotionFromRow,
      },
    });
  }

  const report: ImportReport = {
    company_id: request.companyId,
    products: null,
    sales: null,
    promotions: null,
  };
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

  // One connection throughout: PostgreSQL's temporary tables live in its session.
  await db.connection().execute(async (conn) => {
    const staged: { rows: StagedRows<StagedKey>; counts: ImportCounts | null }[] = [];
    try {
      for (const { file, name } of keyed) {
        const fileIssues = new FileIssues(basename(file.path));
        issues.push(fileIssues);
        const rows = new StagedRows<StagedKey>(conn, file.target as StagedTarget<StagedKey>);
        const entry = { rows, counts: null as ImportCounts | null };
        staged.push(entry);
        await rows.create();
        const bytesTotal = sizes.get(file.path) ?? 0;
        let bytesRead = 0;
        let read = 0;
        const onBytes = (b: number) => {
          bytesRead = b;
        };
        for await (const row of readCsvRows(file.path, file.columns, fileIssues, onBytes)) {
          const valid = file.validate(row, fileIssues, knownProducts);
          if (valid !== null) await rows.add(row.line, valid);
          if (++read % PROGRESS_EVERY_ROWS === 0) {
            progress({ step: "reading", file: fileIssues.file, rows: read, bytesRead, bytesTotal });
          }
        }
        await rows.finish();
        progress({ step: "checking", file: fileIssues.file, rows: read });
        const duplicates = await rows.duplicates(MAX_KEPT_ISSUES);
        fileIssues.merge(duplicates.issues, duplicates.count);
        if (fileIssues.count === 0) entry.counts = await rows.compare(request.companyId);
        report[name] = entry.counts;
      }
      const count = issues.reduce((n, i) => n + i.count, 0);
      if (count > 0) {
        throw new ImportValidationError(
          issues.flatMap((i) => i.kept),
          count,
        );
      }
      const moving = staged.reduce((n, s) => n + (s.counts ? s.counts.inserted + s.counts.updated : 0), 0);
      if (changedProducts.length === 0 && moving === 0) return;
      progress({ step: "writing", file: null, rows: changedProducts.length + moving });
      await conn.transaction().execute(async (trx) => {
        for (let i = 0; i < changedProducts.length; i += PRODUCTS_PER_INSERT) {
          await trx
            .insertInto("products")
            .values(
              changedProducts
                .slice(i, i + PRODUCTS_PER_INSERT)
                .map((p) => ({ ...p, company_id: request.companyId, updated_at: now })),
            )
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
                price_endings: eb.ref("excluded.price_endings"),
                updated_at: eb.ref("excluded.updated_at"),
              })),
            )
            .execute();
        }
        for (const { rows, counts } of staged) {
          const changed = counts === null ? 0 : counts.inserted + counts.updated;
          if (changed > 0) await rows.moveInto(trx, request.companyId, changed);
        }
      });
    } finally {
      for (const { rows } of staged) await rows.drop();
    }
  });
  return report;
}

function sameFields<T>(a: T, b: T, fields: readonly (keyof T)[]): boolean {
  return fields.every((f) => (a[f] ?? null) === (b[f] ?? null));
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
