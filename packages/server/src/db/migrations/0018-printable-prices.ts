import type { Kysely } from "kysely";

// Prices a shop can print (DESIGN §11). `companies.price_endings` / `products.price_endings`: JSON arrays of endings
// (null: none for a company, the company's for a product; "[]" on a product: none, whatever the company says).
// `recommendations.lowest_price_30d` and `override_id`, stored with the run (null on rows persisted before).
// `overrides`: a partner's pins (`price`) or narrowings (`min_price` / `max_price`) of one product over dates.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("companies").addColumn("price_endings", "text").execute();
  await db.schema.alterTable("products").addColumn("price_endings", "text").execute();
  await db.schema.alterTable("recommendations").addColumn("lowest_price_30d", "double precision").execute();
  await db.schema.alterTable("recommendations").addColumn("override_id", "text").execute();
  await db.schema
    .createTable("overrides")
    .addColumn("override_id", "text", (c) => c.primaryKey())
    .addColumn("company_id", "text", (c) => c.notNull())
    .addColumn("product_id", "text", (c) => c.notNull())
    .addColumn("start_date", "text", (c) => c.notNull())
    .addColumn("end_date", "text", (c) => c.notNull())
    .addColumn("price", "double precision")
    .addColumn("min_price", "double precision")
    .addColumn("max_price", "double precision")
    .addColumn("note", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addForeignKeyConstraint(
      "overrides_product_fk",
      ["company_id", "product_id"],
      "products",
      ["company_id", "product_id"],
      (fk) => fk.onDelete("cascade"),
    )
    .execute();
  await db.schema
    .createIndex("overrides_company_product_idx")
    .on("overrides")
    .columns(["company_id", "product_id", "start_date"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("overrides").ifExists().execute();
  await db.schema.alterTable("recommendations").dropColumn("override_id").execute();
  await db.schema.alterTable("recommendations").dropColumn("lowest_price_30d").execute();
  await db.schema.alterTable("products").dropColumn("price_endings").execute();
  await db.schema.alterTable("companies").dropColumn("price_endings").execute();
}
