import type { Db } from "../db/database.js";
import type { PromotionRow, SalesRow } from "../db/schema.js";

export interface SalesQuery {
  companyId: string;
  productId?: string;
  /** Inclusive bounds, `YYYY-MM-DD`. */
  from?: string;
  to?: string;
}

export function createSalesRepository(db: Db) {
  return {
    /** Daily rows ordered by product then date; `promoted` is 0 where the import gave none. */
    async list(query: SalesQuery): Promise<SalesRow[]> {
      let q = db.selectFrom("sales").selectAll().where("company_id", "=", query.companyId);
      if (query.productId !== undefined) q = q.where("product_id", "=", query.productId);
      if (query.from !== undefined) q = q.where("date", ">=", query.from);
      if (query.to !== undefined) q = q.where("date", "<=", query.to);
      return q.orderBy("product_id").orderBy("date").execute();
    },

    /**
     * The company's planned (or past) promotions on dates in `[from, to]` (inclusive, `YYYY-MM-DD`), ordered by
     * product then date; a product and day without a row has none planned (promoted 0).
     */
    async plannedPromotions(
      companyId: string,
      from: string,
      to: string,
    ): Promise<Omit<PromotionRow, "company_id">[]> {
      return db
        .selectFrom("promotions")
        .select(["product_id", "date", "promoted"])
        .where("company_id", "=", companyId)
        .where("date", ">=", from)
        .where("date", "<=", to)
        .orderBy("product_id")
        .orderBy("date")
        .execute();
    },

    async count(companyId: string): Promise<number> {
      const row = await db
        .selectFrom("sales")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("company_id", "=", companyId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type SalesRepository = ReturnType<typeof createSalesRepository>;
