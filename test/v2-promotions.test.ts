import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { addDays } from "@pricing/engine";
import { companyToday } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliWithEnv } from "./http-harness.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

/**
 * DESIGN §9 through the real server and the real CLI on one SQLite file: a company whose history sells twice as
 * much on promoted days, a promotion planned for one product and day by `pricing data import --promotions`, and
 * the plan that moves that day's units (and only that day's) by the lift the fit learned; a later import of
 * promoted 0 for the same day takes it back.
 */
const V2 = "/public/v1/v2";
const COMPANY = "promoter";
let h: V2Harness;
let token: string;

interface Item {
  product_id: string;
  date: string;
  price: number;
  expected_units: number;
  expected_units_p10: number | null;
  expected_units_p90: number | null;
}

async function compute(): Promise<Item[]> {
  const res = await h.post(`${V2}/recommendations/compute`, token, { company_id: COMPANY, dry_run: true });
  expect(res.status).toBe(200);
  return ((await res.json()) as { recommendations: Item[] }).recommendations;
}

async function importFile(flag: "--sales" | "--promotions", name: string, lines: string[]): Promise<void> {
  const path = join(h.dataDir, name);
  await writeFile(path, `${lines.join("\n")}\n`);
  const result = await cliWithEnv({}, h.dataDir, "data", "import", "--company", COMPANY, flag, path);
  expect(result.code, result.stderr).toBe(0);
}

const key = (r: Item) => `${r.product_id} ${r.date}`;

beforeAll(async () => {
  h = await startV2Harness("2026-03-10T03:00:00Z");
  await h.seedCompany(COMPANY, { products: 3, tightStock: false, historyDays: 120 });
  token = await h.token(await h.partner([COMPANY]));
  // Every fourth day of the history was promoted and sold twice what it would have: re-imported with `promoted`.
  const rows = await h.ctx.repositories.sales.list({ companyId: COMPANY });
  const first = rows[0]?.date ?? "";
  const promotedDay = (date: string) =>
    Math.round((Date.parse(date) - Date.parse(first)) / 86_400_000) % 4 === 0;
  await importFile("--sales", "sales.csv", [
    "date,product_id,price,units_sold,promoted",
    ...rows.map((r) => {
      const promoted = promotedDay(r.date);
      return `${r.date},${r.product_id},${r.price},${promoted ? 2 * r.units_sold : r.units_sold},${promoted ? 1 : 0}`;
    }),
  ]);
});

afterAll(async () => {
  await h?.destroy();
});

describe("planned promotions", () => {
  it("lift the planned day's expected units and band by the fitted lift, and nothing else", async () => {
    const before = await compute();
    const today = companyToday(h.now(), "UTC");
    const day = addDays(today, 2);
    const target = before.find((r) => r.date === day);
    if (target === undefined) throw new Error(`no plan row on ${day}`);
    await importFile("--promotions", "promotions.csv", [
      "date,product_id,promoted",
      `${day},${target.product_id},1`,
    ]);
    const after = await compute();
    const byKey = new Map(after.map((r) => [key(r), r]));
    const promoted = byKey.get(key(target));
    if (promoted === undefined) throw new Error("the promoted row is gone");
    // History says a promotion doubles the day: the plan expects about twice the units at the same price.
    expect(promoted.price).toBe(target.price);
    const lift = promoted.expected_units / target.expected_units;
    expect(lift).toBeGreaterThan(1.6);
    expect(lift).toBeLessThan(2.5);
    expect(promoted.expected_units_p90 ?? 0).toBeGreaterThan(target.expected_units_p90 ?? 0);
    expect(promoted.expected_units_p10 ?? 0).toBeGreaterThanOrEqual(target.expected_units_p10 ?? 0);
    // Every other product and day is planned as before.
    for (const r of before) {
      if (key(r) === key(target)) continue;
      expect(byKey.get(key(r))).toEqual(r);
    }

    // A later import for the same day and product replaces it: promoted 0 plans the day as before.
    await importFile("--promotions", "promotions-off.csv", [
      "date,product_id,promoted",
      `${day},${target.product_id},0`,
    ]);
    expect(await compute()).toEqual(before);
  });
});
