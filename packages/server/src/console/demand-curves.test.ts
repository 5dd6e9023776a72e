import { isApiError } from "@pricing/http-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemandCurveSource } from "./demand-curves.js";
import { COMPANY, type ConsoleTest, openConsoleTest } from "./test-console.js";

describe("the console's demand curves", () => {
  let t: ConsoleTest;

  beforeAll(async () => {
    t = await openConsoleTest();
  });
  afterAll(async () => t?.close());

  it("draws each product's curve for the company's today from its sales, kept until its inputs change", async () => {
    const source = createDemandCurveSource(t.ctx);
    const first = await source.curve(COMPANY, "sku-1");
    expect(first).toMatchObject({ company_id: COMPANY, product_id: "sku-1", date: "2026-03-10" });
    expect(first.points.length).toBeGreaterThan(5);
    const sales = await t.ctx.repositories.sales.list({ companyId: COMPANY, productId: "sku-1" });
    expect(first.observed.reduce((days, o) => days + o.days, 0)).toBe(sales.length);
    expect(first.observed_price_range).toEqual([
      Math.min(...sales.map((s) => s.price)),
      Math.max(...sales.map((s) => s.price)),
    ]);
    // Another product of the same company, from the same computation; the same product again, the same curve.
    expect((await source.curve(COMPANY, "sku-2")).product_id).toBe("sku-2");
    expect(await source.curve(COMPANY, "sku-1")).toEqual(first);
    // A new day is a new curve.
    t.setNow("2026-03-11T09:00:00Z");
    expect((await source.curve(COMPANY, "sku-1")).date).toBe("2026-03-11");
    t.setNow("2026-03-10T09:00:00Z");
  });

  it("passes through the run's own price, units and band of today, as the plan's learner believes them", async () => {
    const source = createDemandCurveSource(t.ctx);
    const run = await t.ctx.repositories.runs.atOffset(COMPANY, 0);
    const items = await t.ctx.repositories.runs.recommendations(run?.run_id ?? "", {
      startDate: "2026-03-10",
      endDate: "2026-03-10",
    });
    expect(items.length).toBe(3);
    for (const item of items) {
      const curve = await source.curve(COMPANY, item.product_id);
      const point = curve.points.find((p) => p.price === item.price);
      expect(point, item.product_id).toBeDefined();
      expect([point?.expected_units, point?.expected_units_p10, point?.expected_units_p90]).toEqual([
        item.expected_units,
        item.expected_units_p10,
        item.expected_units_p90,
      ]);
    }
  });

  it("answers 404 for an unknown company or product", async () => {
    const source = createDemandCurveSource(t.ctx);
    const code = (p: Promise<unknown>) =>
      p.then(
        () => "ok",
        (e: unknown) => (isApiError(e) ? e.code : String(e)),
      );
    expect(await code(source.curve("nobody", "sku-1"))).toBe("company_not_found");
    expect(await code(source.curve(COMPANY, "sku-404"))).toBe("not_found");
  });
});
