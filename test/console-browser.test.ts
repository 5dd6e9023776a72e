import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type DemoResult, seedDemo } from "@pricing/server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, type HeadlessBrowser, launchChromium } from "../benchmarks/src/headless-chromium.js";
import { startV2Harness, TEST_SETTINGS, type V2Harness } from "./v2-harness.js";

// The operator console in a real browser (headless Chromium driven by playwright-core), against the real server
// with the demo's data: what an operator sees and does. Under CI a missing browser fails (`.ci/run` installs
// Debian's chromium); elsewhere these skip without one.
const browserAvailable = chromiumPath() !== null;
if (!browserAvailable && process.env.CI) throw new Error("CI needs Chromium for the console's browser tests");
const COMPANY = "demo-grocer";

describe.skipIf(!browserAvailable)("the operator console in a browser", () => {
  let h: V2Harness;
  let demo: DemoResult;
  let token: string;
  let browser: HeadlessBrowser;
  let page: Page;
  let consoleUrl: string;

  const train = async () => {
    const res = await h.post("/public/v1/v2/model/train", token, {
      company_id: COMPANY,
      auto_approve: false,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { model_id: string }).model_id;
  };
  const modelReport = async () =>
    (await (await h.get(`/public/v1/v2/model?company_id=${COMPANY}`, token)).json()) as {
      approved: { model_id: string } | null;
      latest: { model_id: string } | null;
    };

  beforeAll(async () => {
    // Short trainings: the tests are about the console, each promotion needs a fresh artifact.
    h = await startV2Harness(undefined, { ...TEST_SETTINGS, trainSeconds: 0.5 }, { consolePort: 0 });
    demo = await seedDemo(h.ctx);
    token = await h.token(demo);
    consoleUrl = h.server.consoleUrl ?? "";
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${consoleUrl}/companies/${COMPANY}`);
    // Not logged in: the login form, then back to the page asked for.
    await page.fill("input[name=operator]", "alice");
    await page.click("#login-form button[type=submit]");
    await page.waitForURL(`${consoleUrl}/companies/${COMPANY}`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.destroy();
  });

  it("draws the demo company's price path with the run's prices, and its demand curve", async () => {
    await page.waitForSelector("#price-path[data-drawn=true]");
    const drawn = await page.evaluate(() => {
      const chart = (globalThis as unknown as { consoleCharts: { pricePath: { data: (number | null)[][] } } })
        .consoleCharts.pricePath;
      const [days, , recommended, rule] = chart.data;
      return (days ?? []).flatMap((day, i) =>
        recommended?.[i] == null
          ? []
          : [
              {
                date: new Date((day ?? 0) * 1000).toISOString().slice(0, 10),
                price: recommended[i],
                rule: rule?.[i],
              },
            ],
      );
    });
    const product = await page.getAttribute("#price-path", "data-product");
    const res = await h.get(
      `/public/v1/v2/recommendations?company_id=${COMPANY}&product_id=${product}`,
      token,
    );
    const run = (await res.json()) as {
      recommendations: { date: string; price: number; rule_price: number }[];
    };
    expect(run.recommendations.length).toBeGreaterThan(0);
    expect(drawn).toEqual(
      run.recommendations.map((r) => ({ date: r.date, price: r.price, rule: r.rule_price })),
    );

    await page.waitForSelector("#demand-curve[data-drawn=true]");
    const curve = await page.evaluate(() => {
      const charts = (
        globalThis as unknown as { consoleCharts: { demandCurve: { data: (number | null)[][] } } }
      ).consoleCharts;
      return { prices: charts.demandCurve.data[0]?.length ?? 0, units: charts.demandCurve.data[1] ?? [] };
    });
    expect(curve.prices).toBeGreaterThan(5);
    expect(curve.units.filter((u) => u !== null).length).toBeGreaterThan(5);
  });

  it("draws a partner's pinned price and the run's 30-day lowest price on the price path", async () => {
    const product = (await page.getAttribute("#price-path", "data-product")) ?? "";
    const read = async () =>
      (
        (await (
          await h.get(`/public/v1/v2/recommendations?company_id=${COMPANY}&product_id=${product}`, token)
        ).json()) as {
          recommendations: {
            date: string;
            price: number;
            rule_price: number;
            lowest_price_30d: number | null;
          }[];
        }
      ).recommendations;
    const before = await read();
    // A price the run or its rule charges is printable and inside the guardrails: pinned on a day it is not charged.
    const charged = [...new Set(before.flatMap((r) => [r.price, r.rule_price]))];
    const day = before.find((r, i) => i >= 2 && charged.some((p) => p !== r.price));
    const pin = charged.find((p) => p !== day?.price);
    if (day === undefined || pin === undefined) throw new Error("the run and its rule charge one price");
    const res = await h.post("/public/v1/v2/overrides?recompute=true", token, {
      company_id: COMPANY,
      product_id: product,
      start_date: day.date,
      end_date: day.date,
      price: pin,
    });
    expect(res.status).toBe(200);
    const after = await read();
    expect(after.find((r) => r.date === day.date)?.price).toBe(pin);

    await page.goto(`${consoleUrl}/companies/${COMPANY}?product=${encodeURIComponent(product)}`);
    await page.waitForSelector("#price-path[data-drawn=true]");
    const drawn = await page.evaluate(() => {
      const chart = (
        globalThis as unknown as {
          consoleCharts: { pricePath: { data: (number | null)[][]; series: { label?: string }[] } };
        }
      ).consoleCharts.pricePath;
      const column = (label: string) => chart.data[chart.series.findIndex((s) => s.label === label)] ?? [];
      const dates = (chart.data[0] ?? []).map((d) => new Date((d ?? 0) * 1000).toISOString().slice(0, 10));
      const byDate = (values: (number | null)[]) =>
        dates.flatMap((date, i) => (values[i] == null ? [] : [[date, values[i]]]));
      return {
        pinned: byDate(column("Override: pinned price")),
        lowest: byDate(column("Lowest price, 30 days before")),
        recommended: byDate(column("Recommended")),
      };
    });
    expect(drawn.pinned).toEqual([[day.date, pin]]);
    expect(drawn.recommended).toEqual(after.map((r) => [r.date, r.price]));
    expect(after.some((r) => r.lowest_price_30d !== null)).toBe(true);
    expect(drawn.lowest).toEqual(
      after.flatMap((r) => (r.lowest_price_30d === null ? [] : [[r.date, r.lowest_price_30d]])),
    );
    expect(await page.textContent("#overrides tbody")).toContain(String(pin));
  });

  it("changes a setting after the operator confirms it, recorded with the operator's name", async () => {
    await page.selectOption("#settings-form select[name=exploration]", "free");
    await page.click("#settings-form button[type=submit]");
    await page.waitForSelector("#settings-status[data-kind=ok]");
    expect(await page.textContent("#settings-status")).toContain("recorded as console:alice");
    expect(await page.textContent("#settings-events tbody")).toContain("console:alice");
    expect((await h.ctx.repositories.companies.get(COMPANY))?.exploration).toBe("free");
    const { events } = await h.ctx.repositories.companies.events(COMPANY, 5);
    expect(events[0]).toMatchObject({
      field: "exploration",
      old: "cautious",
      new: "free",
      by: "console:alice",
    });
  });

  it("changes the price endings from their field, and shows a refusal without changing them", async () => {
    await page.fill("#settings-form input[name=price_endings]", ".99");
    await page.click("#settings-form button[type=submit]");
    // The previous test's save left an `ok` status: wait for this save's own.
    await page.locator("#settings-status[data-kind=ok]", { hasText: "price_endings" }).waitFor();
    expect(await page.textContent("#settings-status")).toContain('price_endings [] → [".99"]');
    expect(await page.inputValue("#settings-form input[name=price_endings]")).toBe(".99");
    expect((await h.ctx.repositories.companies.get(COMPANY))?.price_endings).toBe(`[".99"]`);
    const { events } = await h.ctx.repositories.companies.events(COMPANY, 5);
    expect(events[0]).toMatchObject({ field: "price_endings", old: [], new: [".99"], by: "console:alice" });

    const eventsBefore = (await h.ctx.repositories.companies.events(COMPANY, 1)).total;
    await page.fill("#settings-form input[name=price_endings]", ".9x");
    await page.click("#settings-form button[type=submit]");
    await page.waitForSelector("#settings-status[data-kind=error]");
    expect(await page.textContent("#settings-status")).toContain("Refused: 400");
    expect((await h.ctx.repositories.companies.get(COMPANY))?.price_endings).toBe(`[".99"]`);
    expect((await h.ctx.repositories.companies.events(COMPANY, 1)).total).toBe(eventsBefore);
  });

  it("promotes the latest model", async () => {
    const fresh = await train();
    await page.goto(`${consoleUrl}/companies/${COMPANY}/model`);
    await page.click(`button[data-action=promote][data-model="${fresh}"]`);
    await page.waitForSelector("#model-status[data-kind=ok]");
    expect(await page.textContent("#model-status")).toContain(`Promoted ${fresh}`);
    expect((await modelReport()).approved?.model_id).toBe(fresh);
    expect(await page.textContent("#model-events tbody")).toContain("console:alice");
  });

  it("shows the API's 409 when the latest model changed since the page was drawn, promoting nothing", async () => {
    const shown = await train();
    await page.goto(`${consoleUrl}/companies/${COMPANY}/model`);
    const approvedBefore = (await modelReport()).approved?.model_id;
    const newer = await train();
    await page.click(`button[data-action=promote][data-model="${shown}"]`);
    await page.waitForSelector("#model-status[data-kind=error]");
    const text = await page.textContent("#model-status");
    expect(text).toContain("409 model_id_stale");
    expect(text).toContain("out of date");
    expect((await modelReport()).approved?.model_id).toBe(approvedBefore);
    // The page now shows the newer latest, ready to promote.
    expect(await page.isVisible(`button[data-action=promote][data-model="${newer}"]`)).toBe(true);
  });

  it("refuses a form another site's page posts to it, though the browser holds a session", async () => {
    const before = await h.ctx.repositories.companies.get(COMPANY);
    const eventsBefore = (await h.ctx.repositories.companies.events(COMPANY, 1)).total;
    const target = `${consoleUrl}/api/companies/${COMPANY}/settings`;
    // The classic forged JSON: a text/plain form whose one field spells the body.
    const evil: Server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html>
        <form id="f" method="post" action="${target}" enctype="text/plain">
          <input name='{"force_rule":true,"x":"' value='"}'>
        </form><script>document.getElementById("f").submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    try {
      // `localhost` is another site than `127.0.0.1`, where the console's session cookie lives.
      const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
      const refused = page.waitForResponse((r) => r.url() === target);
      // The page leaves itself at once: wait for its first response only, then for the forged POST's.
      await page.goto(evilUrl, { waitUntil: "commit" });
      const response = await refused;
      expect(response.status()).toBe(403);
      await page.waitForURL(target, { waitUntil: "domcontentloaded" });
      const body = (await page.textContent("body")) ?? "";
      expect(body).toContain("cross_origin_refused");
    } finally {
      // The browser keeps its connection alive: close it, or the server waits for it.
      evil.closeAllConnections();
      await new Promise<void>((resolve) => evil.close(() => resolve()));
    }
    expect(await h.ctx.repositories.companies.get(COMPANY)).toEqual(before);
    expect((await h.ctx.repositories.companies.events(COMPANY, 1)).total).toBe(eventsBefore);
  });
});
