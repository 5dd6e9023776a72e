import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueCredentials } from "../auth/credentials.js";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { importCompanyData } from "../import/data-import.js";
import { createDatabase, type Db } from "./database.js";
import { migrateToLatest } from "./migrate.js";
import { postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "./test-postgres.js";

const enabled = await postgresTestsEnabled();
const schema = `pricing_test_${process.pid}_${Date.now()}`;

let admin: Db;
let ctx: ServerContext;
let dataDir: string;

beforeAll(async () => {
  if (!enabled) return;
  dataDir = await mkdtemp(join(tmpdir(), "pricing-pg-"));
  admin = createDatabase({ dataDir, databaseUrl: TEST_PG_URL });
  await sql`create schema ${sql.id(schema)}`.execute(admin);
  ctx = await createServerContext(loadConfig({}, { dataDir, databaseUrl: TEST_PG_URL, ...TEST_PG_SECRETS }), {
    pgSchema: schema,
  });
});

afterAll(async () => {
  if (!enabled) return;
  await ctx?.close();
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
  await admin.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

describe.skipIf(!enabled)("PostgreSQL: same migrations and queries as SQLite", () => {
  it("created every table in the test schema, and migrating again is a no-op", async () => {
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = ${schema} order by table_name`.execute(
      ctx.db,
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        "companies",
        "key_pairs",
        "partner_companies",
        "partners",
        "products",
        "recommendation_days",
        "runs",
        "sales",
      ]),
    );
    expect(await migrateToLatest(ctx.db)).toEqual({ applied: [] });
  });

  it("runs the partner, key, company and mapping queries", async () => {
    const keys = issueCredentials(ctx.pepper);
    const partner = await ctx.repositories.partners.create("PG partner", keys);
    expect((await ctx.repositories.partners.findCredentials(keys.access_key))?.partner_id).toBe(
      partner.partner_id,
    );
    const next = issueCredentials(ctx.pepper);
    await ctx.repositories.partners.rotateKeys(partner.partner_id, next);
    expect((await ctx.repositories.partners.findCredentials(keys.access_key))?.superseded_at).not.toBeNull();
    expect((await ctx.repositories.partners.findCredentials(next.access_key))?.superseded_at).toBeNull();

    expect(
      await ctx.repositories.companies.create({
        company_id: "pg-co",
        name: "PG",
        timezone: "UTC",
        currency: "EUR",
      }),
    ).toBeDefined();
    expect(
      await ctx.repositories.companies.create({
        company_id: "pg-co",
        name: "dup",
        timezone: "UTC",
        currency: "EUR",
      }),
    ).toBeUndefined();
    await ctx.repositories.companies.map(partner.partner_id, "pg-co");
    await ctx.repositories.companies.map(partner.partner_id, "pg-co");
    expect(await ctx.auth.isCompanyAccessible(partner.partner_id, "pg-co")).toBe(true);
    const [listed] = await ctx.repositories.partners.list();
    expect(listed).toMatchObject({
      partner_id: partner.partner_id,
      access_key: next.access_key,
      companies: ["pg-co"],
    });

    const token = await ctx.auth.exchangeToken(
      { access_key: next.access_key, secret_key: next.secret_key },
      { requestId: "r", ip: "127.0.0.1", log: undefined as never },
    );
    expect((await ctx.auth.verifyToken(token.access_token)).partnerId).toBe(partner.partner_id);
    expect(await ctx.repositories.companies.unmap(partner.partner_id, "pg-co")).toBe(true);
    expect(await ctx.auth.isCompanyAccessible(partner.partner_id, "pg-co")).toBe(false);
  });

  it("imports products and sales idempotently and counts them", async () => {
    const products = join(dataDir, "products.csv");
    const sales = join(dataDir, "sales.csv");
    await writeFile(products, "product_id,name,currency,base_price\nsku-1,Mug,EUR,10\n");
    await writeFile(
      sales,
      "date,product_id,price,units_sold\n2026-01-01,sku-1,10,3\n2026-01-02,sku-1,9.5,4\n",
    );
    const request = { companyId: "pg-co", productsFile: products, salesFile: sales };
    expect((await importCompanyData(ctx.db, ctx.clock, request)).sales).toMatchObject({ inserted: 2 });
    expect((await importCompanyData(ctx.db, ctx.clock, request)).sales).toMatchObject({
      inserted: 0,
      unchanged: 2,
    });
    expect(await ctx.repositories.sales.count("pg-co")).toBe(2);
    expect(
      (await ctx.repositories.sales.list({ companyId: "pg-co", from: "2026-01-02" })).map((s) => s.price),
    ).toEqual([9.5]);
  });

  it("allows one nightly run per company and day, and any number of on-demand runs", async () => {
    const run = {
      company_id: "pg-co",
      as_of: "2026-01-03",
      created_at: "2026-01-03T02:00:00.000Z",
      source: "rule" as const,
      model_id: null,
      start_date: "2026-01-04",
      end_date: "2026-01-10",
      products: 1,
      recommendation_count: 7,
    };
    await ctx.db
      .insertInto("runs")
      .values({ ...run, run_id: "run_1", kind: "nightly" })
      .execute();
    await expect(
      ctx.db
        .insertInto("runs")
        .values({ ...run, run_id: "run_2", kind: "nightly" })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/i);
    await ctx.db
      .insertInto("runs")
      .values({ ...run, run_id: "run_3", kind: "on_demand" })
      .execute();
    await ctx.db
      .insertInto("runs")
      .values({ ...run, run_id: "run_4", kind: "on_demand" })
      .execute();
    const count = await ctx.db
      .selectFrom("runs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("company_id", "=", "pg-co")
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(3);
  });
});
