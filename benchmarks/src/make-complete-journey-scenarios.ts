/**
 * `pnpm scenarios:complete-journey [--out FILE]`: the five real-shaped markets of `src/scenarios/complete-journey.json`
 * (`bench:policy --scenario`, `bench:closed-loop --suite real`), cut from the committed Complete Journey fixture by
 * `realShapedMarket`. The products: in the five categories with the most units, the busiest product whose demand
 * fit identifies its elasticity on Jan-Sep (standard error under 0.25, elasticity above 0.5).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fitDemand } from "@pricing/engine";
import { FIXTURE_DIR, readCompleteJourney } from "./complete-journey/dataset.js";
import { CJ_WINDOW, realShapedMarket } from "./complete-journey/real-shaped-markets.js";

export const SCENARIO_FILE = fileURLToPath(new URL("./scenarios/complete-journey.json", import.meta.url));
const MARKETS = 5;
const MAX_SE = 0.25;
const MIN_ELASTICITY = 0.5;

const { values } = parseArgs({ options: { out: { type: "string", default: SCENARIO_FILE } } });
const data = readCompleteJourney(FIXTURE_DIR);
const manifest = JSON.parse(readFileSync(join(FIXTURE_DIR, "manifest.json"), "utf8")) as {
  products: { product_id: string; name: string; category: string; units: number }[];
};
const history = data.sales.filter((r) => r.date >= CJ_WINDOW.historyStart && r.date < CJ_WINDOW.start);
const fit = fitDemand(
  history,
  data.products.map((p) => ({ productId: p.product_id, referencePrice: p.base_price })),
);
const categoryUnits = new Map<string, number>();
for (const p of manifest.products)
  categoryUnits.set(p.category, (categoryUnits.get(p.category) ?? 0) + p.units);
const categories = [...categoryUnits.keys()].sort(
  (a, b) => (categoryUnits.get(b) ?? 0) - (categoryUnits.get(a) ?? 0),
);
const chosen = categories
  .map((category) =>
    manifest.products
      .filter((p) => p.category === category)
      .sort((a, b) => b.units - a.units)
      .find((p) => {
        const f = fit.products.get(p.product_id);
        return f !== undefined && f.stdErrors.elasticity < MAX_SE && f.elasticity > MIN_ELASTICITY;
      }),
  )
  .filter((p) => p !== undefined)
  .slice(0, MARKETS);

const markets = chosen.map((p, i) => {
  const product = data.products.find((c) => c.product_id === p.product_id);
  if (product === undefined) throw new Error(`product ${p.product_id} not in products.csv`);
  return realShapedMarket({ ...product, name: p.name }, data.sales, CJ_WINDOW, 2301 + i);
});
for (const { fit: f } of markets) {
  process.stderr.write(
    `${f.productId}: elasticity ${f.elasticity} in ${f.band.join("..")}, alpha ${f.overdispersion}, season level ${f.seasonLevel}\n`,
  );
}
writeFileSync(
  values.out,
  `${JSON.stringify(
    markets.map((m) => m.scenario),
    null,
    2,
  )}\n`,
);
process.stderr.write(`wrote ${markets.length} markets to ${values.out}\n`);
