import { PostgresAdapter } from "kysely";
import type { Db } from "../db/database.js";
import type { OverrideRow } from "../db/schema.js";

/** Where a new override meets another of the same product: the one it overlaps (stored or in the same request). */
export interface OverrideOverlap {
  product_id: string;
  /** The stored override's id; null where two of the same request overlap. */
  override_id: string | null;
}

export function createOverridesRepository(db: Db) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    /**
     * Inserts every row, or none where one overlaps another override of its product (stored or in `rows`): the
     * overlap is returned and nothing written. One transaction; on PostgreSQL the products' rows are locked first, so
     * two concurrent requests cannot both pass the check.
     */
    async createAll(rows: readonly OverrideRow[]): Promise<OverrideOverlap | null> {
      return db.transaction().execute(async (trx) => {
        const [first] = rows;
        if (first === undefined) return null;
        const productIds = [...new Set(rows.map((r) => r.product_id))];
        if (postgres) {
          await trx
            .selectFrom("products")
            .select("product_id")
            .where("company_id", "=", first.company_id)
            .where("product_id", "in", productIds)
            .forUpdate()
            .execute();
        }
        const stored = await trx
          .selectFrom("overrides")
          .selectAll()
          .where("company_id", "=", first.company_id)
          .where("product_id", "in", productIds)
          .execute();
        const seen: OverrideRow[] = [...stored];
        for (const row of rows) {
          const other = seen.find(
            (o) =>
              o.product_id === row.product_id && o.start_date <= row.end_date && row.start_date <= o.end_date,
          );
          if (other !== undefined) {
            return {
              product_id: row.product_id,
              override_id: stored.includes(other) ? other.override_id : null,
            };
          }
          seen.push(row);
        }
        await trx
          .insertInto("overrides")
          .values([...rows])
          .execute();
        return null;
      });
    },

    /** A company's overrides (of one product where given) by product then start date, a page, and how many. */
    async list(
      companyId: string,
      page: { productId?: string | undefined; limit: number; offset: number },
    ): Promise<{ total: number; overrides: OverrideRow[] }> {
      let q = db.selectFrom("overrides").where("company_id", "=", companyId);
      if (page.productId !== undefined) q = q.where("product_id", "=", page.productId);
      const [count, overrides] = await Promise.all([
        q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow(),
        q
          .selectAll()
          .orderBy("product_id")
          .orderBy("start_date")
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
      ]);
      return { total: Number(count.n), overrides };
    },

    /** The company's overrides that end on or after `from`: the ones a plan starting then can meet. */
    async endingFrom(companyId: string, from: string): Promise<OverrideRow[]> {
      return db
        .selectFrom("overrides")
        .selectAll()
        .where("company_id", "=", companyId)
        .where("end_date", ">=", from)
        .orderBy("product_id")
        .orderBy("start_date")
        .execute();
    },

    /** One product's overrides in force on some day of `from`..`to` (inclusive), by start date. */
    async overlapping(
      companyId: string,
      productId: string,
      from: string,
      to: string,
    ): Promise<OverrideRow[]> {
      return db
        .selectFrom("overrides")
        .selectAll()
        .where("company_id", "=", companyId)
        .where("product_id", "=", productId)
        .where("start_date", "<=", to)
        .where("end_date", ">=", from)
        .orderBy("start_date")
        .execute();
    },

    /** Removes the company's override; false where it has none of that id. */
    async remove(companyId: string, overrideId: string): Promise<boolean> {
      const result = await db
        .deleteFrom("overrides")
        .where("company_id", "=", companyId)
        .where("override_id", "=", overrideId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type OverridesRepository = ReturnType<typeof createOverridesRepository>;
