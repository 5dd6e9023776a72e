import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSalesCsv } from "./sales-csv.js";

const HEADER = "date,product_id,price,units_sold,stock_on_hand";
const PRODUCTS = new Set(["sku-1", "sku-2", "sku-3"]);

const saleArb = fc.record({
  day: fc.integer({ min: 0, max: 3000 }),
  product_id: fc.constantFrom("sku-1", "sku-2", "sku-3"),
  cents: fc.integer({ min: 1, max: 1_000_000 }),
  units_sold: fc.nat({ max: 10_000 }),
  stock_on_hand: fc.option(fc.nat({ max: 100_000 }), { nil: null }),
});

const dateOf = (day: number) => new Date(Date.UTC(2020, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);

const uniqueSales = fc.uniqueArray(saleArb, { selector: (s) => `${s.product_id}|${s.day}`, maxLength: 40 });

const toCsv = (lines: string[]): string => lines.join("\n");

describe("parseSalesCsv", () => {
  it("reads back every valid row exactly", () => {
    fc.assert(
      fc.property(uniqueSales, (sales) => {
        const lines = sales.map(
          (s) =>
            `${dateOf(s.day)},${s.product_id},${(s.cents / 100).toFixed(2)},${s.units_sold},${s.stock_on_hand ?? ""}`,
        );
        const parsed = parseSalesCsv("sales.csv", toCsv([HEADER, ...lines]), PRODUCTS);
        expect(parsed.issues).toEqual([]);
        expect(parsed.sales).toEqual(
          sales.map((s) => ({
            date: dateOf(s.day),
            product_id: s.product_id,
            price: Number((s.cents / 100).toFixed(2)),
            units_sold: s.units_sold,
            stock_on_hand: s.stock_on_hand,
          })),
        );
      }),
      { seed: 20261121, numRuns: 60 },
    );
  });

  it("names the line and column of a single corrupted cell and keeps the other rows", () => {
    const bad = { date: "2026-13-01", price: "abc", units_sold: "-3", product_id: "sku-404" } as const;
    fc.assert(
      fc.property(
        uniqueSales.filter((s) => s.length > 0),
        fc.nat(),
        fc.constantFrom(...(Object.keys(bad) as (keyof typeof bad)[])),
        (sales, pick, column) => {
          const target = pick % sales.length;
          const lines = sales.map((s, i) => {
            const cells: Record<string, string> = {
              date: dateOf(s.day),
              product_id: s.product_id,
              price: (s.cents / 100).toFixed(2),
              units_sold: String(s.units_sold),
              stock_on_hand: s.stock_on_hand === null ? "" : String(s.stock_on_hand),
            };
            if (i === target) cells[column] = bad[column];
            return HEADER.split(",")
              .map((c) => cells[c])
              .join(",");
          });
          const parsed = parseSalesCsv("sales.csv", toCsv([HEADER, ...lines]), PRODUCTS);
          expect(parsed.issues).toHaveLength(1);
          expect(parsed.issues[0]).toMatchObject({ file: "sales.csv", line: target + 2, column });
          expect(parsed.sales).toHaveLength(sales.length - 1);
        },
      ),
      { seed: 7, numRuns: 60 },
    );
  });
});
