import type { Kysely } from "kysely";

// Known promotions (DESIGN.md §9). `sales.promoted`: a promotion on that sales day, 0/1 or a share in [0, 1] (the
// share of stores with a display), 0 where the file gave none, so rows imported before read as not promoted.
// `promotions`: planned promotions, future dates allowed, one row per product and day (a later import replaces it);
// plans and backtests read them and assume 0 where none is planned.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("sales")
    .addColumn("promoted", "double precision", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("promotions")
    .addColumn("company_id", "text", (c) => c.notNull())
    .addColumn("product_id", "text", (c) => c.notNull())
    .addColumn("date", "text", (c) => c.notNull())
    .addColumn("promoted", "double precision", (c) => c.notNull())
    .addPrimaryKeyConstraint("promotions_pk", ["company_id", "product_id", "date"])
    .addForeignKeyConstraint(
      "promotions_product_fk",
      ["company_id", "product_id"],
      "products",
      ["company_id", "product_id"],
      (fk) => fk.onDelete("cascade"),
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("promotions").execute();
  await db.schema.alterTable("sales").dropColumn("promoted").execute();
}
