/**
 * Screenshots of every console page, for docs/console/ (docs/console.md shows them): the demo's two companies on a fixed
 * day, one settings change, one trained model waiting in `latest`, one saved backtest and a partner's pin and
 * narrowing on the first product of demo-grocer (in its latest run), in headless Chromium.
 *
 *   pnpm console:screenshots [--out docs/console]
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { addDays } from "@pricing/engine";
import { createOverrides, runBacktest, seedDemo, trainModel, updateCompanySettings } from "@pricing/server";
import { logIn, startConsoleFixture } from "./console-fixture.js";
import { launchChromium } from "./headless-chromium.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({ options: { out: { type: "string", default: "docs/console" } } });
const out = path.resolve(ROOT, args.out);
mkdirSync(out, { recursive: true });

const TODAY = "2026-03-10";
const fixture = await startConsoleFixture({
  now: `${TODAY}T09:00:00Z`,
  pricing: { trainSeconds: 3 },
  seed: async (ctx) => {
    await seedDemo(ctx);
    await updateCompanySettings(ctx, "demo-grocer", { exploration: "free" }, "console:alice");
    await trainModel(ctx, { company_id: "demo-grocer", auto_approve: false }, { by: "operator" });
    await runBacktest(
      ctx,
      { company_id: "demo-grocer", from: "2026-02-10", save: true },
      { by: "console:alice" },
    );
    const [first] = await ctx.repositories.products.listByCompany("demo-grocer");
    if (first === undefined) throw new Error("demo-grocer has no products");
    const cents = (x: number) => Math.round(x * 100) / 100;
    await createOverrides(
      ctx,
      {
        company_id: "demo-grocer",
        overrides: [
          {
            product_id: first.product_id,
            start_date: addDays(TODAY, 3),
            end_date: addDays(TODAY, 4),
            price: cents(first.base_price * 1.1),
            note: "flyer price",
          },
          {
            product_id: first.product_id,
            start_date: addDays(TODAY, 8),
            end_date: addDays(TODAY, 10),
            max_price: cents(first.base_price * 0.9),
            note: "supplier deal",
          },
        ],
      },
      { recompute: true },
      "operator",
    );
  },
});
const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
try {
  const page = await browser.context.newPage();
  const shot = async (name: string, url: string, ready?: string) => {
    await page.goto(`${fixture.consoleUrl}${url}`);
    if (ready !== undefined) await page.waitForSelector(ready);
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
    process.stdout.write(`${path.relative(ROOT, path.join(out, `${name}.png`))}\n`);
  };
  await shot("login", "/login");
  await logIn(page, fixture.consoleUrl, "alice");
  await shot("companies", "/", "#companies");
  await shot("company", "/companies/demo-grocer", "#demand-curve[data-drawn=true]");
  await shot(
    "company-tight-stock",
    "/companies/demo-fashion?product=sku-2",
    "#demand-curve[data-drawn=true]",
  );
  await shot("model", "/companies/demo-grocer/model", "#artifacts");
  await shot("backtests", "/companies/demo-grocer/backtests", "#backtests");
  await shot("batches", "/batches", "section.batch");
} finally {
  await browser.close();
  await fixture.close();
}
