import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readCsvRows } from "./csv-rows.js";
import { FileIssues } from "./import-issues.js";
import { SALES_COLUMNS, type SalesInput, saleFromRow } from "./sales-csv.js";

const HEADER = "date,product_id,price,units_sold,stock_on_hand,promoted";
const PRODUCTS = new Set(["sku-1", "sku-2", "sku-3"]);
const dir = mkdtempSync(join(tmpdir(), "pricing-sales-csv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const saleArb = fc.record({
  day: fc.integer({ min: 0, max: 3000 }),
  product_id: fc.constantFrom("sku-1", "sku-2", "sku-3"),
  cents: fc.integer({ min: 1, max: 1_000_000 }),
  units_sold: fc.nat({ max: 10_000 }),
  stock_on_hand: fc.option(fc.nat({ max: 100_000 }), { nil: null }),
  promoted: fc.option(fc.constantFrom("0", "1", "0.25", "0.5"), { nil: null }),
});

const dateOf = (day: number) => new Date(Date.UTC(2020, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);

const uniqueSales = fc.uniqueArray(saleArb, { selector: (s) => `${s.product_id}|${s.day}`, maxLength: 40 });

let files = 0;

/** Streams `lines` from a file, as the import reads sales.csv. */
async function readSales(lines: string[]): Promise<{ sales: SalesInput[]; issues: FileIssues }> {
  const path = join(dir, `sales-${files++}.csv`);
  writeFileSync(path, lines.join("\n"));
  const issues = new FileIssues("sales.csv");
  const sales: SalesInput[] = [];
  for await (const row of readCsvRows(path, SALES_COLUMNS, issues)) {
    const sale = saleFromRow(row, issues, PRODUCTS);
    if (sale) sales.push(sale);
  }
  return { sales, issues };
}

describe("sales.csv rows", () => {
  it("reads back every valid row exactly, promoted 0 where blank", async () => {
    await fc.assert(
      fc.asyncProperty(uniqueSales, async (sales) => {
        const lines = sales.map(
          (s) =>
            `${dateOf(s.day)},${s.product_id},${(s.cents / 100).toFixed(2)},${s.units_sold},${s.stock_on_hand ?? ""},${s.promoted ?? ""}`,
        );
        const parsed = await readSales([HEADER, ...lines]);
        expect(parsed.issues.kept).toEqual([]);
        expect(parsed.sales).toEqual(
          sales.map((s) => ({
            date: dateOf(s.day),
            product_id: s.product_id,
            price: Number((s.cents / 100).toFixed(2)),
            units_sold: s.units_sold,
            stock_on_hand: s.stock_on_hand,
            promoted: Number(s.promoted ?? 0),
          })),
        );
      }),
      { seed: 20261121, numRuns: 60 },
    );
  });

  it("names the line and column of a single corrupted cell and keeps the other rows", async () => {
    const bad = {
      date: "2026-13-01",
      price: "abc",
      units_sold: "-3",
      product_id: "sku-404",
      promoted: "1.5",
    } as const;
    await fc.assert(
      fc.asyncProperty(
        uniqueSales.filter((s) => s.length > 0),
        fc.nat(),
        fc.constantFrom(...(Object.keys(bad) as (keyof typeof bad)[])),
        async (sales, pick, column) => {
          const target = pick % sales.length;
          const lines = sales.map((s, i) => {
            const cells: Record<string, string> = {
              date: dateOf(s.day),
              product_id: s.product_id,
              price: (s.cents / 100).toFixed(2),
              units_sold: String(s.units_sold),
              stock_on_hand: s.stock_on_hand === null ? "" : String(s.stock_on_hand),
              promoted: s.promoted ?? "",
            };
            if (i === target) cells[column] = bad[column];
            return HEADER.split(",")
              .map((c) => cells[c])
              .join(",");
          });
          const parsed = await readSales([HEADER, ...lines]);
          expect(parsed.issues.count).toBe(1);
          expect(parsed.issues.kept[0]).toMatchObject({ file: "sales.csv", line: target + 2, column });
          expect(parsed.sales).toHaveLength(sales.length - 1);
        },
      ),
      { seed: 7, numRuns: 60 },
    );
  });

  it("reports a bad header, a short record and text that is not CSV on their lines", async () => {
    expect((await readSales(["date,product_id,price,colour", "2026-01-01,sku-1,1,red"])).issues.kept).toEqual(
      [
        { file: "sales.csv", line: 1, column: "colour", message: "unknown column" },
        { file: "sales.csv", line: 1, column: "units_sold", message: "required column missing" },
      ],
    );
    const short = await readSales([
      HEADER,
      "2026-01-01,sku-1,1,2,,",
      "2026-01-02,sku-1,1",
      "2026-01-03,sku-1,1,2,,",
    ]);
    expect(short.issues.kept).toEqual([
      { file: "sales.csv", line: 3, column: null, message: "expected 6 fields, found 3" },
    ]);
    expect(short.sales.map((s) => s.date)).toEqual(["2026-01-01", "2026-01-03"]);
    const quote = await readSales([HEADER, "2026-01-01,sku-1,1,2,,", '2026-01-02,"sku-1,1,2,,']);
    expect(quote.issues.kept).toHaveLength(1);
    expect(quote.issues.kept[0]).toMatchObject({ line: 3, column: null });
    expect(quote.issues.kept[0]?.message).toMatch(/^not valid CSV: /);
    expect((await readSales([])).issues.kept).toEqual([
      { file: "sales.csv", line: 1, column: null, message: "the file is empty" },
    ]);
  });

  it("keeps the first issues of a file bad on every line, and counts them all", async () => {
    const lines = Array.from({ length: 1500 }, (_, i) => `${dateOf(i)},sku-1,-1,1,,`);
    const parsed = await readSales([HEADER, ...lines]);
    expect(parsed.issues.count).toBe(1500);
    expect(parsed.issues.kept).toHaveLength(1000);
    expect(parsed.issues.kept.at(-1)).toMatchObject({ line: 1001, column: "price" });
  });
});
