import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The committed Complete Journey fixture (84.51°, "The Complete Journey 2.0", CC0): 30 packaged grocery products of
 * one US chain, a year of daily sales in the import format (see its README). The server ships it (`files` in its
 * package.json), so the demo and `pricing backtest` on real data need no download. Two folders up from this module
 * in both `src/demo/` and `dist/demo/`.
 */
export const COMPLETE_JOURNEY_DIR = fileURLToPath(
  new URL("../../fixtures/complete-journey/", import.meta.url),
);

export const COMPLETE_JOURNEY_FILES = {
  products: join(COMPLETE_JOURNEY_DIR, "products.csv"),
  sales: join(COMPLETE_JOURNEY_DIR, "sales.csv"),
  promotions: join(COMPLETE_JOURNEY_DIR, "promotions.csv"),
  manifest: join(COMPLETE_JOURNEY_DIR, "manifest.json"),
} as const;
