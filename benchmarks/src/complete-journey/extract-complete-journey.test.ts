import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { parquetWriteFile } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractCompleteJourney, UNIT_COST_SHARE, writeExtraction } from "./extract-complete-journey.js";
import { DEFAULT_SELECTION } from "./select-products.js";

// A panel in miniature, written as Parquet with several row groups and pages, then read back in slices of 3 rows
// so every slice boundary falls inside a page: products 1 and 2 pass the rule, 3 is produce (weight-priced), 4 never
// changes its price, 5 sells on too few days.
let dir: string;
const DAYS = [
  "2017-01-02",
  "2017-01-03",
  "2017-01-04",
  "2017-01-05",
  "2017-01-06",
  "2017-01-07",
  "2017-01-08",
];
const WEEK = 2;

interface Line {
  product: number;
  store: number;
  day: number;
  quantity: number;
  value: number;
  /** Hour of the line in UTC (default 15:00, 10:00 in New York). */
  hour?: number;
}

function lines(): Line[] {
  const out: Line[] = [];
  DAYS.forEach((_, day) => {
    // Product 1: 2 units a day at 1.00, 3 at 0.80 on days 3 and 4; not sold on day 2, nor (in UTC) on day 5.
    if (day !== 2 && day !== 5)
      out.push({
        product: 1,
        store: 10 + (day % 3),
        day,
        quantity: day === 3 || day === 4 ? 3 : 2,
        value: day === 3 || day === 4 ? 2.4 : 2,
      });
    // Product 2: one unit a day, 2.00 or 2.50; more units than product 1 overall.
    out.push({ product: 2, store: 10, day, quantity: 4, value: day % 2 === 0 ? 8 : 10 });
    out.push({ product: 3, store: 10, day, quantity: 1, value: 1 + day / 10 });
    out.push({ product: 4, store: 10, day, quantity: 1, value: 3 });
    if (day === 0) out.push({ product: 5, store: 10, day, quantity: 1, value: 1 });
  });
  // A line at 02:00 UTC on 2017-01-06 is the evening of 2017-01-05 in New York: product 1 sells that day after all.
  out.push({ product: 1, store: 12, day: 6, quantity: 1, value: 1, hour: 2 });
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "complete-journey-"));
  const small = { rowGroupSize: 5, pageSize: 16 };
  parquetWriteFile({
    filename: join(dir, "products.parquet"),
    ...small,
    columnData: [
      { name: "product_id", data: [1n, 2n, 3n, 4n, 5n], type: "INT64" },
      { name: "department", data: ["GROCERY", "GROCERY", "PRODUCE", "GROCERY", "DRUG GM"], type: "STRING" },
      { name: "brand", data: ["Private", "National", "National", "Private", "National"], type: "STRING" },
      { name: "product_category", data: ["EGGS", "SOFT DRINKS", "BANANAS", "SUGAR", "SOAP"], type: "STRING" },
      {
        name: "product_type",
        data: ["EGGS - LARGE", "SOFT DRINKS, 12PK", "BANANAS", "SUGAR", "SOAP"],
        type: "STRING",
      },
      { name: "package_size", data: ["1 DZ", "12 OZ", null, "4 LB", null], type: "STRING" },
    ],
  });
  const all = lines();
  parquetWriteFile({
    filename: join(dir, "transactions.parquet"),
    ...small,
    columnData: [
      { name: "product_id", data: all.map((l) => BigInt(l.product)), type: "INT64" },
      { name: "store_id", data: all.map((l) => BigInt(l.store)), type: "INT64" },
      { name: "quantity", data: all.map((l) => BigInt(l.quantity)), type: "INT64" },
      { name: "sales_value", data: all.map((l) => l.value), type: "DOUBLE" },
      { name: "week", data: all.map(() => BigInt(WEEK)), type: "INT64" },
      {
        name: "transaction_timestamp",
        data: all.map((l) => new Date(`${DAYS[l.day]}T${String(l.hour ?? 15).padStart(2, "0")}:00:00Z`)),
        type: "TIMESTAMP",
      },
    ],
  });
  // Product 1 is listed in stores 10-13 in week 2 and displayed or mailed in two of them: 2 of its 4 stores.
  const placements = [
    [1, 10, "3", "0"],
    [1, 11, "0", "A"],
    [1, 12, "0", "0"],
    [1, 13, "0", "0"],
    [2, 10, "0", "0"],
    [3, 10, "1", "A"],
  ] as const;
  parquetWriteFile({
    filename: join(dir, "promotions.parquet"),
    ...small,
    columnData: [
      { name: "product_id", data: placements.map((p) => BigInt(p[0])), type: "INT64" },
      { name: "store_id", data: placements.map((p) => BigInt(p[1])), type: "INT64" },
      { name: "display_location", data: placements.map((p) => p[2]), type: "STRING" },
      { name: "mailer_location", data: placements.map((p) => p[3]), type: "STRING" },
      { name: "week", data: placements.map(() => BigInt(WEEK)), type: "INT64" },
    ],
  });
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const read = async (file: string): Promise<Record<string, string>[]> =>
  parse(await readFile(join(dir, "out", file), "utf8"), { columns: true });

describe("extractCompleteJourney", () => {
  it("keeps the busiest packaged products with moving prices and aggregates chain x product x day", async () => {
    const extraction = await extractCompleteJourney({
      tables: dir,
      rule: { ...DEFAULT_SELECTION, minSellingShare: 0.5, minPriceSpread: 1.1 },
      sliceRows: 3,
    });
    expect(extraction.products.map((p) => p.productId)).toEqual([2, 1]);
    expect(extraction.counts).toMatchObject({ transactionLines: lines().length, candidates: 4, passed: 2 });
    // Day indexes from 2017-01-01: the chain is open on the 7 days with lines.
    expect(extraction.openDays).toEqual([1, 2, 3, 4, 5, 6, 7]);
    writeExtraction(extraction, join(dir, "out"), { name: "test" });

    const products = await read("products.csv");
    expect(products).toEqual([
      {
        product_id: "2",
        name: "SOFT DRINKS, 12PK 12 OZ (National)",
        currency: "USD",
        base_price: "2",
        unit_cost: String(Math.round(2 * UNIT_COST_SHARE * 100) / 100),
      },
      {
        product_id: "1",
        name: "EGGS - LARGE 1 DZ (Private)",
        currency: "USD",
        base_price: "1",
        unit_cost: "0.7",
      },
    ]);
    const sales = (await read("sales.csv")).filter((r) => r.product_id === "1");
    expect(sales.map((r) => [r.date, r.price, r.units_sold, r.promoted])).toEqual([
      ["2017-01-02", "1", "2", "0.5"],
      ["2017-01-03", "1", "2", "0.5"],
      // No sale: the last price carries, with 0 units.
      ["2017-01-04", "1", "0", "0.5"],
      ["2017-01-05", "0.8", "3", "0.5"],
      ["2017-01-06", "0.8", "3", "0.5"],
      // The line at 02:00 UTC on the 8th is the evening of the 7th in New York.
      ["2017-01-07", "1", "1", "0.5"],
      ["2017-01-08", "1", "2", "0.5"],
    ]);
    const promotions = await read("promotions.csv");
    expect(promotions.every((r) => r.product_id === "1" && r.promoted === "0.5")).toBe(true);
    expect(promotions).toHaveLength(7);
    const manifest = JSON.parse(await readFile(join(dir, "out", "manifest.json"), "utf8"));
    expect(manifest.products.map((p: { product_id: string }) => p.product_id)).toEqual(["2", "1"]);
  });

  it("keeps only the named number of products", async () => {
    const extraction = await extractCompleteJourney({
      tables: dir,
      rule: { ...DEFAULT_SELECTION, minSellingShare: 0.5, products: 1 },
      sliceRows: 4,
    });
    expect(extraction.products.map((p) => p.productId)).toEqual([2]);
    expect(extraction.counts.passed).toBe(2);
  });
});
