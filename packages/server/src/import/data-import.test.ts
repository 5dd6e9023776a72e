import { writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerContext } from "../context.js";
import { openTestContext, type TestContext } from "../db/test-context.js";
import { postgresTestsEnabled } from "../db/test-postgres.js";
import { formatIssue, type ImportProgress, ImportValidationError, importCompanyData } from "./data-import.js";
import { STAGE_ROWS_PER_TRANSACTION } from "./staged-rows.js";

const pgEnabled = await postgresTestsEnabled();
const dateOf = (day: number) => new Date(Date.UTC(2024, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);

for (const dialect of ["sqlite", "postgres"] as const) {
  describe.skipIf(dialect === "postgres" && !pgEnabled)(`data import on ${dialect}`, () => {
    let ctx: ServerContext;
    let opened: TestContext | undefined;
    let files = 0;

    async function csv(lines: string[]): Promise<string> {
      const file = join(opened?.dataDir ?? "", `file-${files++}.csv`);
      await writeFile(file, `${lines.join("\n")}\n`);
      return file;
    }

    async function rejected(
      request: Parameters<typeof importCompanyData>[2],
    ): Promise<ImportValidationError> {
      const error = await importCompanyData(ctx.db, ctx.clock, request).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ImportValidationError);
      return error as ImportValidationError;
    }

    const counts = async () => ({
      sales: await ctx.repositories.sales.count("shop"),
      promotions: (await ctx.repositories.sales.plannedPromotions("shop", "0000-01-01", "9999-12-31")).length,
    });

    beforeAll(async () => {
      opened = await openTestContext(dialect, "data_import", () => new Date("2026-03-01T00:00:00Z"));
      ctx = opened.ctx;
      await ctx.repositories.companies.create({
        company_id: "shop",
        name: "Shop",
        timezone: "UTC",
        currency: "EUR",
      });
      const products = await csv([
        "product_id,name,currency,base_price",
        "sku-1,Mug,EUR,10",
        "sku-2,Cup,EUR,4",
      ]);
      await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", productsFile: products });
    });

    afterAll(async () => {
      await opened?.close();
    });

    it("stores `promoted` with each sale (0 where absent), and a change of `promoted` alone is a change", async () => {
      const first = await csv([
        "date,product_id,price,units_sold,stock_on_hand,promoted",
        "2026-01-01,sku-1,10,3,,1",
        "2026-01-02,sku-1,9.5,4,20,0.25",
        "2026-01-01,sku-2,4,7,,",
      ]);
      const report = await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", salesFile: first });
      expect(report).toEqual({
        company_id: "shop",
        products: null,
        sales: { rows: 3, inserted: 3, updated: 0, unchanged: 0 },
        promotions: null,
      });
      const listed = await ctx.repositories.sales.list({ companyId: "shop" });
      expect(listed.map((s) => [s.product_id, s.date, s.stock_on_hand, s.promoted])).toEqual([
        ["sku-1", "2026-01-01", null, 1],
        ["sku-1", "2026-01-02", 20, 0.25],
        ["sku-2", "2026-01-01", null, 0],
      ]);
      expect(
        (await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", salesFile: first })).sales,
      ).toEqual({
        rows: 3,
        inserted: 0,
        updated: 0,
        unchanged: 3,
      });
      const onlyPromoted = await csv([
        "date,product_id,price,units_sold,stock_on_hand,promoted",
        "2026-01-01,sku-1,10,3,,0",
        "2026-01-02,sku-1,9.5,4,20,0.25",
      ]);
      expect(
        (await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", salesFile: onlyPromoted })).sales,
      ).toEqual({ rows: 2, inserted: 0, updated: 1, unchanged: 1 });
      // A file without the column says "no promotion" for its rows.
      const without = await csv([
        "date,product_id,price,units_sold,stock_on_hand",
        "2026-01-02,sku-1,9.5,4,20",
      ]);
      expect(
        (await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", salesFile: without })).sales,
      ).toEqual({ rows: 1, inserted: 0, updated: 1, unchanged: 0 });
      expect(
        (await ctx.repositories.sales.list({ companyId: "shop", productId: "sku-1" })).map((s) => s.promoted),
      ).toEqual([0, 0]);
    });

    it("imports planned promotions, future dates allowed; a later import for the same day replaces it", async () => {
      const plan = await csv([
        "date,product_id,promoted",
        "2026-03-05,sku-1,1",
        "2026-03-06,sku-1,1",
        "2026-03-05,sku-2,0.4",
        "2027-01-01,sku-2,1",
      ]);
      const report = await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", promotionsFile: plan });
      expect(report.promotions).toEqual({ rows: 4, inserted: 4, updated: 0, unchanged: 0 });
      expect(report.sales).toBeNull();
      const replan = await csv(["date,product_id,promoted", "2026-03-06,sku-1,0", "2026-03-05,sku-2,0.4"]);
      expect(
        (await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", promotionsFile: replan }))
          .promotions,
      ).toEqual({ rows: 2, inserted: 0, updated: 1, unchanged: 1 });
      expect(await ctx.repositories.sales.plannedPromotions("shop", "2026-03-01", "2026-03-31")).toEqual([
        { product_id: "sku-1", date: "2026-03-05", promoted: 1 },
        { product_id: "sku-1", date: "2026-03-06", promoted: 0 },
        { product_id: "sku-2", date: "2026-03-05", promoted: 0.4 },
      ]);
    });

    it("names duplicates by line with the other issues, in line order, and writes nothing", async () => {
      const before = await counts();
      const sales = await csv([
        "date,product_id,price,units_sold,promoted",
        "2026-02-01,sku-1,10,1,",
        "2026-02-02,sku-1,10,1,2",
        "2026-02-01,sku-1,11,1,",
        "2026-02-03,sku-9,10,1,",
        "2026-02-01,sku-1,12,1,",
        "2026-02-02,sku-2,10,1,",
      ]);
      const promotions = await csv(["date,product_id,promoted", "2026-04-01,sku-1,1", "2026-04-01,sku-1,0"]);
      const error = await rejected({ companyId: "shop", salesFile: sales, promotionsFile: promotions });
      expect(error.issues.map(formatIssue)).toEqual([
        `${basename(sales)}:3 column promoted: must be at most 1`,
        `${basename(sales)}:4 column date: duplicate of line 2 (same product and date)`,
        `${basename(sales)}:5 column product_id: unknown product "sku-9"`,
        `${basename(sales)}:6 column date: duplicate of line 2 (same product and date)`,
        `${basename(promotions)}:3 column date: duplicate of line 2 (same product and date)`,
      ]);
      expect(error.count).toBe(5);
      expect(await counts()).toEqual(before);
    });

    it("writes nothing from a file of many staging transactions whose last row is bad", async () => {
      const before = await counts();
      const rows = STAGE_ROWS_PER_TRANSACTION * 2 + 7;
      const lines = ["date,product_id,price,units_sold"];
      for (let i = 0; i < rows; i++) lines.push(`${dateOf(2000 + (i >> 1))},sku-${(i % 2) + 1},10,${i % 9}`);
      lines.push("2099-01-01,sku-1,10,oops");
      const steps: ImportProgress["step"][] = [];
      const error = await rejected({
        companyId: "shop",
        salesFile: await csv(lines),
        onProgress: (p) => steps.push(p.step),
      });
      expect(error.issues.map(formatIssue)).toEqual([
        `file-${files - 1}.csv:${rows + 2} column units_sold: must be a number, got "oops"`,
      ]);
      expect(await counts()).toEqual(before);
      expect(steps.filter((s) => s === "reading")).toHaveLength(Math.floor((rows + 1) / 10_000));
      expect(steps.at(-1)).toBe("checking");

      // The same rows without the bad one: all of them, once.
      const good = await importCompanyData(ctx.db, ctx.clock, {
        companyId: "shop",
        salesFile: await csv(lines.slice(0, -1)),
      });
      expect(good.sales).toEqual({ rows, inserted: rows, updated: 0, unchanged: 0 });
      expect(await ctx.repositories.sales.count("shop")).toBe(before.sales + rows);
      if (dialect === "sqlite") {
        // So many rows against the table's: its date index was dropped and built again, the same as before.
        const indexes = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
          where type = 'index' and tbl_name = 'sales' and sql is not null`.execute(ctx.db);
        expect(indexes.rows.map((i) => i.name)).toEqual(["sales_company_date_idx"]);
        expect(indexes.rows[0]?.sql).toMatch(/"company_id", "date"/);
      }
      const since = await ctx.repositories.sales.list({ companyId: "shop", from: dateOf(2000 + 5000) });
      expect(since).toHaveLength(rows - 10_000);
    });

    it("refuses a promotion of an unknown product or outside [0, 1], naming the cell", async () => {
      const error = await rejected({
        companyId: "shop",
        promotionsFile: await csv([
          "date,product_id,promoted",
          "2026-05-01,sku-7,1",
          "2026-05-02,sku-1,-0.5",
        ]),
      });
      expect(error.issues.map((i) => [i.line, i.column, i.message])).toEqual([
        [2, "product_id", 'unknown product "sku-7"'],
        [3, "promoted", "must be at least 0"],
      ]);
    });

    it("stores a product's own price endings and refuses guardrails no printable price fits, naming the product", async () => {
      const bad = await csv([
        "product_id,name,currency,base_price,min_price,max_price,price_endings",
        "sku-5,Plate,EUR,10.2,10.1,10.5,.99",
        "sku-6,Fork,EUR,3,,,.99;x",
      ]);
      const error = await rejected({ companyId: "shop", productsFile: bad });
      expect(error.issues.map((i) => [i.line, i.column, i.message])).toEqual([
        [
          2,
          "price_endings",
          "product sku-5: no price ending in .99 lies between its guardrails 10.1 and 10.5",
        ],
        [3, "price_endings", expect.stringContaining('price ending "x"')],
      ]);
      const good = await csv([
        "product_id,name,currency,base_price,price_endings",
        "sku-1,Mug,EUR,10,.99;.49",
        "sku-2,Cup,EUR,4,",
      ]);
      await importCompanyData(ctx.db, ctx.clock, { companyId: "shop", productsFile: good });
      const stored = await ctx.repositories.products.listByCompany("shop");
      expect(stored.map((p) => [p.product_id, p.price_endings])).toEqual([
        ["sku-1", [".99", ".49"]],
        ["sku-2", null],
      ]);
    });

    it("refuses a currency code Intl does not know, naming file, line and column, and writes nothing", async () => {
      const file = await csv([
        "product_id,name,currency,base_price",
        "sku-9,Bowl,XYZ,10",
        "sku-8,Jar,KWD,2.5",
      ]);
      const error = await rejected({ companyId: "shop", productsFile: file });
      expect(error.issues.map(formatIssue)).toEqual([
        `${basename(file)}:2 column currency: "XYZ" is not an ISO 4217 currency code this server knows`,
      ]);
      expect((await ctx.repositories.products.listByCompany("shop")).map((p) => p.product_id)).toEqual([
        "sku-1",
        "sku-2",
      ]);
    });
  });
}
