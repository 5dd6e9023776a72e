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
  };
}

export type ProductRepository = ReturnType<typeof createProductRepository>;
