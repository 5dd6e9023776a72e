import type { Db } from "../db/database.js";
import type { ProductRow } from "../db/schema.js";
import { readEndings } from "./price-endings-column.js";

/** A product row with its own price endings parsed (null: the company's). */
export type CatalogRow = Omit<ProductRow, "price_endings"> & { price_endings: string[] | null };

export function createProductRepository(db: Db) {
  return {
    async listByCompany(companyId: string): Promise<CatalogRow[]> {
      const rows = await db
        .selectFrom("products")
        .selectAll()
        .where("company_id", "=", companyId)
        .orderBy("product_id")
        .execute();
      return rows.map((r) => ({ ...r, price_endings: readEndings(r.price_endings) }));
    },

    /** How many products each company has (companies without any are absent). */
    async countsByCompany(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom("products")
        .select((eb) => ["company_id", eb.fn.countAll<number>().as("n")])
        .groupBy("company_id")
        .execute();
      return new Map(rows.map((r) => [r.company_id, Number(r.n)]));
    },
  };
}

export type ProductRepository = ReturnType<typeof createProductRepository>;
