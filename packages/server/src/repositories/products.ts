import type { Db } from "../db/database.js";
import type { ProductRow } from "../db/schema.js";

export function createProductRepository(db: Db) {
  return {
    async listByCompany(companyId: string): Promise<ProductRow[]> {
      return db
        .selectFrom("products")
        .selectAll()
        .where("company_id", "=", companyId)
        .orderBy("product_id")
        .execute();
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
