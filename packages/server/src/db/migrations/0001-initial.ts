import { type Kysely, sql } from "kysely";

// Types chosen to mean the same on SQLite and PostgreSQL: text, integer, double precision.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("partners")
    .addColumn("partner_id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("disabled_at", "text")
    .execute();

  await db.schema
    .createTable("key_pairs")
    .addColumn("key_id", "text", (c) => c.primaryKey())
    .addColumn("partner_id", "text", (c) => c.notNull().references("partners.partner_id").onDelete("cascade"))
    .addColumn("access_key", "text", (c) => c.notNull().unique())
    .addColumn("secret_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("superseded_at", "text")
    .execute();
  await db.schema.createIndex("key_pairs_partner_idx").on("key_pairs").column("partner_id").execute();

  await db.schema
    .createTable("companies")
    .addColumn("company_id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("timezone", "text", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("partner_companies")
    .addColumn("partner_id", "text", (c) => c.notNull().references("partners.partner_id").onDelete("cascade"))
    .addColumn("company_id", "text", (c) =>
      c.notNull().references("companies.company_id").onDelete("cascade"),
    )
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("partner_companies_pk", ["partner_id", "company_id"])
    .execute();

  await db.schema
    .createTable("products")
    .addColumn("company_id", "text", (c) =>
      c.notNull().references("companies.company_id").onDelete("cascade"),
    )
    .addColumn("product_id", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("base_price", "double precision", (c) => c.notNull())
    .addColumn("unit_cost", "double precision")
    .addColumn("min_price", "double precision")
    .addColumn("max_price", "double precision")
    .addColumn("max_daily_change", "double precision")
    .addColumn("stock", "integer")
    .addColumn("season_end", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("products_pk", ["company_id", "product_id"])
    .execute();

  await db.schema
    .createTable("sales")
    .addColumn("company_id", "text", (c) => c.notNull())
    .addColumn("product_id", "text", (c) => c.notNull())
    .addColumn("date", "text", (c) => c.notNull())
    .addColumn("price", "double precision", (c) => c.notNull())
    .addColumn("units_sold", "integer", (c) => c.notNull())
    .addColumn("stock_on_hand", "integer")
    .addPrimaryKeyConstraint("sales_pk", ["company_id", "product_id", "date"])
    .addForeignKeyConstraint(
      "sales_product_fk",
      ["company_id", "product_id"],
      "products",
      ["company_id", "product_id"],
      (fk) => fk.onDelete("cascade"),
    )
    .execute();
  await db.schema.createIndex("sales_company_date_idx").on("sales").columns(["company_id", "date"]).execute();

  await db.schema
    .createTable("runs")
    .addColumn("run_id", "text", (c) => c.primaryKey())
    .addColumn("company_id", "text", (c) =>
      c.notNull().references("companies.company_id").onDelete("cascade"),
    )
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('nightly', 'on_demand')`))
    .addColumn("as_of", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull().check(sql`source in ('approved', 'latest', 'rule')`))
    .addColumn("model_id", "text")
    .addColumn("start_date", "text", (c) => c.notNull())
    .addColumn("end_date", "text", (c) => c.notNull())
    .addColumn("products", "integer", (c) => c.notNull())
    .addColumn("recommendation_count", "integer", (c) => c.notNull())
    .execute();
  // Exactly one nightly run per company and day, even across restarts or concurrent schedulers.
  await db.schema
    .createIndex("runs_one_nightly_per_day")
    .on("runs")
    .columns(["company_id", "as_of"])
    .unique()
    .where(sql.ref("kind"), "=", "nightly")
    .execute();
  await db.schema
    .createIndex("runs_company_created_idx")
    .on("runs")
    .columns(["company_id", "created_at", "run_id"])
    .execute();

  await db.schema
    .createTable("recommendations")
    .addColumn("run_id", "text", (c) => c.notNull().references("runs.run_id").onDelete("cascade"))
    .addColumn("product_id", "text", (c) => c.notNull())
    .addColumn("date", "text", (c) => c.notNull())
    .addColumn("price", "double precision", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("base_price", "double precision", (c) => c.notNull())
    .addColumn("rule_price", "double precision", (c) => c.notNull())
    .addColumn("expected_units", "double precision", (c) => c.notNull())
    .addColumn("expected_revenue", "double precision", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("model_id", "text")
    .addPrimaryKeyConstraint("recommendations_pk", ["run_id", "date", "product_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "recommendations",
    "runs",
    "sales",
    "products",
    "partner_companies",
    "companies",
    "key_pairs",
    "partners",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
