import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./http-harness.js";

let dataDir: string;

async function csv(name: string, lines: string[]): Promise<string> {
  const file = join(dataDir, name);
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

async function tableCounts(): Promise<{ products: number; sales: number }> {
  const db = createDatabase({ dataDir });
  try {
    const p = await db
      .selectFrom("products")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const s = await db
      .selectFrom("sales")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return { products: Number(p.n), sales: Number(s.n) };
  } finally {
    await db.destroy();
  }
}

const PRODUCTS = [
  "product_id,name,currency,base_price,unit_cost,min_price,max_price,max_daily_change,stock,season_end",
  "sku-1,Blue mug,EUR,12.50,4,8,20,0.1,300,2026-12-31",
  "sku-2,Red mug,EUR,14.00,,,,,,",
];
const SALES = [
  "date,product_id,price,units_sold,stock_on_hand",
  "2026-01-01,sku-1,12.50,10,290",
  "2026-01-02,sku-1,12.00,13,277",
  "2026-01-01,sku-2,14.00,4,",
];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-import-"));
  expect((await cli(dataDir, "init")).code).toBe(0);
  expect((await cli(dataDir, "company", "create", "--id", "shop", "--name", "Shop")).code).toBe(0);
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

describe("pricing data import", () => {
  it("rejects a bad file naming file, line and column, and writes nothing from either file", async () => {
    const products = await csv("products.csv", PRODUCTS);
    const sales = await csv("bad-sales.csv", [
      ...SALES,
      "2026-01-03,sku-1,-1,5,",
      "2026-02-30,sku-2,14,3,",
      "2026-01-04,sku-9,14,3,",
      "2026-01-05,sku-1,12,2.5,",
      "2026-01-01,sku-1,12.5,10,290",
    ]);
    const res = await cli(
      dataDir,
      "data",
      "import",
      "--company",
      "shop",
      "--products",
      products,
      "--sales",
      sales,
    );
    expect(res.code).toBe(1);
    const error = JSON.parse(res.stderr).error;
    expect(error.code).toBe("invalid_data");
    expect(error.details).toEqual([
      "bad-sales.csv:5 column price: must be greater than 0",
      'bad-sales.csv:6 column date: must be a date YYYY-MM-DD, got "2026-02-30"',
      'bad-sales.csv:7 column product_id: unknown product "sku-9"',
      "bad-sales.csv:8 column units_sold: must be a whole number",
      "bad-sales.csv:9 column date: duplicate of line 2 (same product and date)",
    ]);
    expect(await tableCounts()).toEqual({ products: 0, sales: 0 });
  });

  it("rejects unknown and missing columns in the header", async () => {
    const products = await csv("cols.csv", ["product_id,currency,base_price,colour", "sku-1,EUR,10,blue"]);
    const res = await cli(dataDir, "data", "import", "--company", "shop", "--products", products);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr).error.details).toEqual([
      "cols.csv:1 column colour: unknown column",
      "cols.csv:1 column name: required column missing",
    ]);
  });

  it("imports valid files, and re-importing the same rows changes nothing", async () => {
    const products = await csv("products.csv", PRODUCTS);
    const sales = await csv("sales.csv", SALES);
    const first = await cli(
      dataDir,
      "data",
      "import",
      "--company",
      "shop",
      "--products",
      products,
      "--sales",
      sales,
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({
      company_id: "shop",
      products: { rows: 2, inserted: 2, updated: 0, unchanged: 0 },
      sales: { rows: 3, inserted: 3, updated: 0, unchanged: 0 },
      promotions: null,
    });
    const again = await cli(
      dataDir,
      "data",
      "import",
      "--company",
      "shop",
      "--products",
      products,
      "--sales",
      sales,
    );
    expect(again.json.products).toEqual({ rows: 2, inserted: 0, updated: 0, unchanged: 2 });
    expect(again.json.sales).toEqual({ rows: 3, inserted: 0, updated: 0, unchanged: 3 });
    expect(await tableCounts()).toEqual({ products: 2, sales: 3 });

    const corrected = await csv("sales-fix.csv", [SALES[0] ?? "", "2026-01-02,sku-1,12.00,14,276"]);
    const fix = await cli(dataDir, "data", "import", "--company", "shop", "--sales", corrected);
    expect(fix.json.sales).toEqual({ rows: 1, inserted: 0, updated: 1, unchanged: 0 });
    expect(await tableCounts()).toEqual({ products: 2, sales: 3 });
  });

  it("imports planned promotions with --promotions, and lists at most 50 issues with the count of the rest", async () => {
    const plan = await csv("promotions.csv", [
      "date,product_id,promoted",
      "2027-01-10,sku-1,1",
      "2027-01-11,sku-2,0.5",
    ]);
    const res = await cli(dataDir, "data", "import", "--company", "shop", "--promotions", plan);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toEqual({
      company_id: "shop",
      products: null,
      sales: null,
      promotions: { rows: 2, inserted: 2, updated: 0, unchanged: 0 },
    });
    const bad = await csv("bad-promotions.csv", [
      "date,product_id,promoted",
      ...Array.from({ length: 60 }, (_, i) => `2027-02-${String((i % 28) + 1).padStart(2, "0")},sku-1,2`),
    ]);
    const rejected = await cli(dataDir, "data", "import", "--company", "shop", "--promotions", bad);
    expect(rejected.code).toBe(1);
    const error = JSON.parse(rejected.stderr).error;
    expect(error.message).toBe("import rejected: 60 invalid values; nothing was written");
    expect(error.details).toHaveLength(51);
    expect(error.details[0]).toBe("bad-promotions.csv:2 column promoted: must be at most 1");
    expect(error.details[50]).toBe("... and 10 more");
  });

  it("refuses an unknown company and a missing file with a non-zero exit", async () => {
    const products = await csv("products.csv", PRODUCTS);
    const unknown = await cli(dataDir, "data", "import", "--company", "nope", "--products", products);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error.message).toContain('company "nope" does not exist');
    const missing = await cli(
      dataDir,
      "data",
      "import",
      "--company",
      "shop",
      "--sales",
      join(dataDir, "absent.csv"),
    );
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr).error.message).toContain("file not found");
  });
});
