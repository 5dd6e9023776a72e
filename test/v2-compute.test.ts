import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { importCompanyData } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely
type Json = any;

const V2 = "/public/v1/v2";
let h: V2Harness;
let token: string;
let keys: { access_key: string; secret_key: string };

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z");
  await h.seedCompany("stocked", { products: 2, tightStock: true });
  keys = await h.partner(["stocked"]);
  token = await h.token(keys);
});

afterAll(async () => {
  await h?.destroy();
});

function unitsByProduct(recs: Json[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of recs) out.set(r.product_id, (out.get(r.product_id) ?? 0) + r.expected_units);
  return out;
}

describe("compute uses the current stock", () => {
  it("never plans to sell more than is on hand, and follows the newest stock report", async () => {
    const products = await h.ctx.repositories.products.listByCompany("stocked");
    const first = (await (
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "stocked", dry_run: true })
    ).json()) as Json;
    const planned = unitsByProduct(first.recommendations);
    for (const p of products) {
      expect(p.stock).not.toBeNull();
      expect(planned.get(p.product_id)).toBeLessThanOrEqual((p.stock ?? 0) + 1e-6);
    }

    // Two days later, yesterday's sales row reports 3 units on hand of the first product and 1 sold: 2 are left.
    h.setNow("2026-03-11T03:00:00Z");
    const target = products[0]!;
    const file = join(h.dataDir, "late-sales.csv");
    await writeFile(
      file,
      `date,product_id,price,units_sold,stock_on_hand\n2026-03-10,${target.product_id},${target.base_price},1,3\n`,
    );
    await importCompanyData(h.ctx.db, h.ctx.clock, { companyId: "stocked", salesFile: file });
    token = await h.token(keys);
    const later = (await (
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "stocked", dry_run: true })
    ).json()) as Json;
    expect(later.recommendations[0].date).toBe("2026-03-11");
    const left = unitsByProduct(later.recommendations).get(target.product_id) ?? 0;
    expect(left).toBeLessThanOrEqual(2 + 1e-6);
    expect(left).toBeGreaterThan(1);
    // Scarce stock is priced up by the rule's pacing, compared with the first plan's opening price.
    const opening = (recs: Json[]) => recs.find((r: Json) => r.product_id === target.product_id).price;
    expect(opening(later.recommendations)).toBeGreaterThanOrEqual(opening(first.recommendations));
  });

  it("keeps a trained policy's prices inside guardrails tightened after its training", async () => {
    const trained = await h.post(`${V2}/model/train`, token, { company_id: "stocked", auto_approve: true });
    expect(trained.status).toBe(200);
    const products = await h.ctx.repositories.products.listByCompany("stocked");
    const header =
      "product_id,name,currency,base_price,unit_cost,min_price,max_price,max_daily_change,stock,season_end";
    const lines = products.map((p) =>
      [
        p.product_id,
        p.name,
        p.currency,
        p.base_price,
        p.unit_cost,
        p.base_price * 0.95,
        p.base_price * 1.05,
        "",
        p.stock,
        p.season_end,
      ]
        .map((v) => (v === null ? "" : String(v)))
        .join(","),
    );
    const file = join(h.dataDir, "tight-products.csv");
    await writeFile(file, `${[header, ...lines].join("\n")}\n`);
    await importCompanyData(h.ctx.db, h.ctx.clock, {
      companyId: "stocked",
      productsFile: file,
    });
    const computed = (await (
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "stocked", dry_run: true })
    ).json()) as Json;
    expect(computed.source).toBe("approved");
    expect(computed.recommendations.some((r: Json) => r.source === "approved")).toBe(true);
    for (const r of computed.recommendations) {
      const p = products.find((x) => x.product_id === r.product_id)!;
      expect(r.price).toBeGreaterThanOrEqual(Math.round(p.base_price * 95) / 100 - 0.011);
      expect(r.price).toBeLessThanOrEqual(Math.round(p.base_price * 105) / 100 + 0.011);
    }
  }, 60_000);
});
