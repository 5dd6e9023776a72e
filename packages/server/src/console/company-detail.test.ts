import { addDays } from "@pricing/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOverrides } from "../services/overrides.js";
import type { CompanyDetail } from "./company-detail.js";
import { COMPANY, type ConsoleTest, login, openConsoleTest, sameOrigin } from "./test-console.js";

// The company page's price path with what issue 26 adds: a partner's pin and narrowing over the run's dates and the
// run's 30-day lowest price, read through the console's /api/ and page as an operator sees them.
describe("the company page's price path with overrides and the 30-day lowest price", () => {
  let t: ConsoleTest;
  let cookie: string;
  let productId: string;
  let pinId: string;
  let narrowId: string;
  let pin: number;
  let ceiling: number;
  const today = "2026-03-10";

  const get = (url: string) => t.app.inject({ method: "GET", url, headers: { ...sameOrigin(), cookie } });

  beforeAll(async () => {
    t = await openConsoleTest();
    cookie = await login(t.app, "alice");
    const [product] = await t.ctx.repositories.products.listByCompany(COMPANY);
    if (product === undefined) throw new Error("no product");
    productId = product.product_id;
    // EUR without endings: any cent inside the guardrails (0.5x and 2x the base price) is printable.
    pin = Math.round(product.base_price * 110) / 100;
    ceiling = Math.round(product.base_price * 80) / 100;
    const created = await createOverrides(
      t.ctx,
      {
        company_id: COMPANY,
        overrides: [
          { product_id: productId, start_date: addDays(today, 2), end_date: addDays(today, 3), price: pin },
          {
            product_id: productId,
            start_date: addDays(today, 6),
            end_date: addDays(today, 7),
            max_price: ceiling,
            note: "<b>supplier</b> deal",
          },
        ],
      },
      { recompute: true },
      "operator",
    );
    pinId = created.overrides[0]?.override_id ?? "";
    narrowId = created.overrides[1]?.override_id ?? "";
  }, 60_000);
  afterAll(async () => t?.close());

  it("lists the product's overrides, and the run's days they priced or narrowed", async () => {
    const res = await get(`/api/companies/${COMPANY}?product=${productId}`);
    expect(res.statusCode).toBe(200);
    const path = (res.json() as CompanyDetail).price_path;
    expect(
      path?.overrides.map((o) => [o.override_id, o.start_date, o.end_date, o.price, o.max_price]),
    ).toEqual([
      [pinId, addDays(today, 2), addDays(today, 3), pin, null],
      [narrowId, addDays(today, 6), addDays(today, 7), null, ceiling],
    ]);
    const days = new Map(path?.run.map((d) => [d.date, d]));
    for (const date of [addDays(today, 2), addDays(today, 3)]) {
      expect(days.get(date)).toMatchObject({ price: pin, source: "override", override_id: pinId });
    }
    for (const date of [addDays(today, 6), addDays(today, 7)]) {
      const day = days.get(date);
      expect(day?.override_id).toBe(narrowId);
      expect(day?.source).not.toBe("override");
      expect(day?.price).toBeLessThanOrEqual(ceiling);
    }
    expect(path?.run.filter((d) => d.override_id === null).length).toBe((path?.run.length ?? 0) - 4);
  });

  it("gives each run day the lowest price of the 30 days before it, from the sales and then the run", async () => {
    const path = ((await get(`/api/companies/${COMPANY}?product=${productId}`)).json() as CompanyDetail)
      .price_path;
    const prices = [...(path?.history ?? []), ...(path?.run ?? [])];
    expect(path?.run.length).toBeGreaterThan(0);
    for (const day of path?.run ?? []) {
      const before = prices
        .filter((p) => p.date >= addDays(day.date, -30) && p.date < day.date)
        .map((p) => p.price);
      expect(day.lowest_price_30d, day.date).toBe(Math.min(...before));
    }
  });

  it("exports the pinned and narrowed days in the run's CSV, with their override and 30-day lowest price", async () => {
    const res = await get(`/api/companies/${COMPANY}/run.csv`);
    expect(res.statusCode).toBe(200);
    const [header, ...lines] = res.body.trim().split("\r\n");
    const columns = header?.split(",") ?? [];
    const rows = lines
      .map((l) => Object.fromEntries(l.split(",").map((v, i) => [columns[i], v])))
      .filter((r) => r.product_id === productId);
    const path = ((await get(`/api/companies/${COMPANY}?product=${productId}`)).json() as CompanyDetail)
      .price_path;
    expect(
      rows.map((r) => [r.date, Number(r.price), r.source, r.override_id, Number(r.lowest_price_30d)]),
    ).toEqual(path?.run.map((d) => [d.date, d.price, d.source, d.override_id ?? "", d.lowest_price_30d]));
    expect(rows.filter((r) => r.override_id === pinId).map((r) => r.source)).toEqual([
      "override",
      "override",
    ]);
  });

  it("renders the overrides table and the page's data with the partner's note escaped", async () => {
    const res = await get(`/companies/${COMPANY}?product=${productId}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<tr data-override="${pinId}">`);
    expect(res.body).toContain(`<tr data-override="${narrowId}">`);
    expect(res.body).toContain("&lt;b&gt;supplier&lt;/b&gt; deal");
    expect(res.body).not.toContain("<b>supplier</b>");
  });
});
