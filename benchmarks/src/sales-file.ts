/** Seeded CSV files of a large company for `pnpm bench:import`: its catalogue and years of daily sales. */

import { once } from "node:events";
import { createWriteStream, writeFileSync } from "node:fs";
import seedrandom from "seedrandom";

export interface SalesFiles {
  products: string;
  sales: string;
  rows: number;
  bytes: number;
}

const DAY_MS = 86_400_000;

/**
 * Writes `products` products (`products.csv`) and whole days of their sales, a row per product and day from
 * 2020-01-01 on, until `sales.csv` holds at least `bytes` bytes: the shape of a point-of-sale export, a day at a
 * time. Prices move around each product's base price, about one day in ten is promoted, stock is sometimes blank.
 * The same seed writes the same bytes.
 */
export async function writeSalesFiles(
  dir: string,
  options: { bytes: number; products: number; seed: number },
): Promise<SalesFiles> {
  const random = seedrandom(String(options.seed));
  const ids = Array.from({ length: options.products }, (_, p) => `sku-${String(p).padStart(5, "0")}`);
  const base = ids.map(() => Math.round((2 + random() * 98) * 100) / 100);
  const products = `${dir}/products.csv`;
  writeFileSync(
    products,
    `product_id,name,currency,base_price\n${ids.map((id, p) => `${id},Product ${p},EUR,${base[p]}\n`).join("")}`,
  );
  const sales = `${dir}/sales.csv`;
  const out = createWriteStream(sales);
  let bytes = 0;
  let rows = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, "drain");
  };
  await write("date,product_id,price,units_sold,stock_on_hand,promoted\n");
  const start = Date.UTC(2020, 0, 1);
  for (let day = 0; bytes < options.bytes; day++) {
    const date = new Date(start + day * DAY_MS).toISOString().slice(0, 10);
    const lines: string[] = [];
    for (let p = 0; p < ids.length; p++) {
      const promoted = random() < 0.1 ? 1 : 0;
      const price = Math.round((base[p] ?? 1) * (0.8 + random() * 0.4) * (promoted ? 0.85 : 1) * 100) / 100;
      const units = Math.floor(random() * (promoted ? 40 : 25));
      const stock = random() < 0.2 ? "" : String(Math.floor(random() * 500));
      lines.push(`${date},${ids[p]},${price},${units},${stock},${promoted}\n`);
    }
    rows += lines.length;
    await write(lines.join(""));
  }
  out.end();
  await once(out, "close");
  return { products, sales, rows, bytes };
}
