/**
 * The operator console's page load on a 100-product company with a year of history (issue 27: under 300 ms):
 * server time of each page and JSON answer the company page needs (wall time of sequential requests over
 * loopback, after warm-up), the demand curves' first computation (the fit in a fresh worker thread) and, with a
 * Chromium, the browser's time from navigation to the price path and the demand curve drawn.
 *
 *   pnpm bench:console [--products N] [--days N] [--runs N]
 *
 * Timings are wall clock on a shared machine: compare them within one run.
 */
import { parseArgs } from "node:util";
import { demoScenario, runNightlyBatch, seedCompanyFromMarket } from "@pricing/server";
import { logIn, startConsoleFixture } from "./console-fixture.js";
import { chromiumPath, launchChromium } from "./headless-chromium.js";
import { markdownTable } from "./markdown-table.js";

const { values: args } = parseArgs({
  options: {
    products: { type: "string", default: "100" },
    days: { type: "string", default: "365" },
    runs: { type: "string", default: "20" },
  },
});
const products = Number(args.products);
const days = Number(args.days);
const runs = Number(args.runs);
const COMPANY = "bench-console";
const TODAY = "2026-03-10";

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

const ms = (value: number) => value.toFixed(1);

const setupStart = performance.now();
const fixture = await startConsoleFixture({
  now: `${TODAY}T09:00:00Z`,
  seed: async (ctx) => {
    await seedCompanyFromMarket(ctx, {
      companyId: COMPANY,
      name: "Bench console",
      timezone: "UTC",
      currency: "EUR",
      dir: `${ctx.config.dataDir}/csv`,
      scenario: demoScenario({
        name: COMPANY,
        today: TODAY,
        seed: 11,
        products,
        tightStock: false,
        historyDays: days,
      }),
    });
    await runNightlyBatch(ctx, { trigger: "cli" });
  },
});
process.stderr.write(
  `seeded ${products} products x ${days} days and a nightly run in ${ms((performance.now() - setupStart) / 1000)} s\n`,
);

const url = fixture.consoleUrl;
const host = new URL(url).host;
const login = await fetch(`${url}/login`, {
  method: "POST",
  redirect: "manual",
  headers: { origin: url, "content-type": "application/x-www-form-urlencoded" },
  body: "operator=bench",
});
const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";

async function timed(path: string): Promise<number> {
  const start = performance.now();
  const res = await fetch(`${url}${path}`, { headers: { cookie, host } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return performance.now() - start;
}

const rows: string[][] = [];
const catalogue = await fixture.ctx.repositories.products.listByCompany(COMPANY);
const product = catalogue[Math.floor(catalogue.length / 2)]?.product_id ?? "";
const curvePath = `/api/companies/${COMPANY}/products/${product}/demand-curve`;
rows.push([
  "demand curves, first request (fit of every product in a fresh thread)",
  ms(await timed(curvePath)),
  "",
  "1",
]);
const measured: [string, string][] = [
  ["page / (companies)", "/"],
  [`page /companies/${COMPANY} (price path of one product)`, `/companies/${COMPANY}?product=${product}`],
  [`GET /api/companies/${COMPANY}`, `/api/companies/${COMPANY}?product=${product}`],
  ["GET demand curve (kept)", curvePath],
  ["GET run.csv (100 products x 30 days)", `/api/companies/${COMPANY}/run.csv`],
  [`page /companies/${COMPANY}/model`, `/companies/${COMPANY}/model`],
  ["page /batches", "/batches"],
];
for (const [what, path] of measured) {
  for (let i = 0; i < 3; i++) await timed(path);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timed(path));
  rows.push([what, ms(percentile(times, 0.5)), ms(percentile(times, 0.95)), String(runs)]);
}

if (chromiumPath() !== null) {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await logIn(page, url, "bench");
    const chart: number[] = [];
    const curve: number[] = [];
    for (let i = 0; i < Math.min(runs, 10) + 2; i++) {
      await page.goto(`${url}/companies/${COMPANY}?product=${product}`);
      await page.waitForSelector("#price-path[data-drawn=true]");
      const drawn = await page.evaluate(() => performance.now());
      await page.waitForSelector("#demand-curve[data-drawn=true]");
      const curveDrawn = await page.evaluate(() => performance.now());
      if (i >= 2) {
        chart.push(drawn);
        curve.push(curveDrawn);
      }
    }
    rows.push([
      "browser: navigation to price path drawn",
      ms(percentile(chart, 0.5)),
      ms(percentile(chart, 0.95)),
      String(chart.length),
    ]);
    rows.push([
      "browser: navigation to demand curve drawn",
      ms(percentile(curve, 0.5)),
      ms(percentile(curve, 0.95)),
      String(curve.length),
    ]);
  } finally {
    await browser.close();
  }
} else {
  process.stderr.write("no Chromium: browser timings skipped (apt-get install chromium)\n");
}
await fixture.close();

process.stdout.write(
  `\nConsole page load, ${products} products x ${days} days of history (ms; wall clock, shared machine)\n\n${markdownTable(
    ["what", "median", "p95", "runs"],
    rows,
  )}\n`,
);
