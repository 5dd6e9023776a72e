import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDays, BacktestError } from "@pricing/engine";
import { ApiError } from "@pricing/http-adapter";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { createDatabase, type Db } from "../db/database.js";
import { postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "../db/test-postgres.js";
import { demoScenario, seedCompanyFromMarket } from "../demo/market-seed.js";
import { runBacktest } from "./run-backtest.js";

const pgEnabled = await postgresTestsEnabled();
const TODAY = "2026-03-02";

for (const dialect of ["sqlite", "postgres"] as const) {
  describe.skipIf(dialect === "postgres" && !pgEnabled)(`runBacktest on ${dialect}`, () => {
    let dataDir: string;
    let ctx: ServerContext;
    let admin: Db | undefined;
    const schema = `realbench_backtests_${process.pid}_${Date.now()}`;
    const count = async () =>
      Number(
        (
          await ctx.db
            .selectFrom("backtests")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "pricing-backtest-"));
      if (dialect === "postgres") {
        admin = createDatabase({ dataDir, databaseUrl: TEST_PG_URL });
        await sql`create schema ${sql.id(schema)}`.execute(admin);
        ctx = await createServerContext(
          loadConfig({}, { dataDir, databaseUrl: TEST_PG_URL, ...TEST_PG_SECRETS }),
          { pgSchema: schema },
        );
      } else {
        ctx = await createServerContext(loadConfig({}, { dataDir }));
      }
      await seedCompanyFromMarket(ctx, {
        companyId: "shop",
        name: "Shop",
        timezone: "UTC",
        currency: "EUR",
        dir: join(dataDir, "csv"),
        scenario: demoScenario({
          name: "shop",
          today: TODAY,
          seed: 5,
          products: 3,
          tightStock: false,
          historyDays: 90,
        }),
      });
    });

    afterAll(async () => {
      await ctx?.close();
      if (admin) {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
        await admin.destroy();
      }
      await rm(dataDir, { recursive: true, force: true });
    });

    it("scores the held-out days and, without save, writes nothing", async () => {
      const progress: number[] = [];
      const { report, saved } = await runBacktest(
        ctx,
        { company_id: "shop", from: addDays(TODAY, -14) },
        { by: "operator", onProgress: (p) => progress.push(p.done) },
      );
      expect(saved).toBeNull();
      expect(await count()).toBe(0);
      expect(report).toMatchObject({ company_id: "shop", from: addDays(TODAY, -14), to: addDays(TODAY, -1) });
      expect(report.refit).toBe("daily");
      expect(report.summary.rows).toBe(14 * 3);
      expect(report.products.map((p) => p.product_id)).toEqual(["sku-1", "sku-2", "sku-3"]);
      expect(progress).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    });

    it("saves the report without its rows, and the repository lists it newest first", async () => {
      const first = await runBacktest(
        ctx,
        { company_id: "shop", from: addDays(TODAY, -14), refit: "once", save: true },
        { by: "operator" },
      );
      const second = await runBacktest(
        ctx,
        { company_id: "shop", from: addDays(TODAY, -7), to: addDays(TODAY, -3), save: true },
        { by: "console:ana" },
      );
      expect(await count()).toBe(2);
      const stored = await ctx.repositories.backtests.get(first.saved?.backtest_id ?? "");
      expect(stored).toEqual(first.saved);
      expect(stored).toMatchObject({
        company_id: "shop",
        by: "operator",
        from: addDays(TODAY, -14),
        to: addDays(TODAY, -1),
        refit: "once",
        summary: first.report.summary,
        products: first.report.products,
      });
      const listed = await ctx.repositories.backtests.list("shop", { limit: 10, offset: 0 });
      expect(listed.total).toBe(2);
      expect(listed.backtests.map((b) => b.backtest_id)).toEqual([
        second.saved?.backtest_id,
        first.saved?.backtest_id,
      ]);
      expect(listed.backtests[0]).toMatchObject({
        by: "console:ana",
        to: addDays(TODAY, -3),
        refit: "daily",
      });
      expect((await ctx.repositories.backtests.list("shop", { limit: 1, offset: 1 })).backtests).toEqual([
        first.saved,
      ]);
      expect((await ctx.repositories.backtests.list("other", { limit: 10, offset: 0 })).total).toBe(0);
    });

    it("refuses an unknown company and a range without history or sales, writing nothing", async () => {
      const before = await count();
      const attempt = (request: Parameters<typeof runBacktest>[1]) =>
        runBacktest(ctx, { ...request, save: true }, { by: "operator" }).then(
          () => "none",
          (error: unknown) =>
            error instanceof ApiError || error instanceof BacktestError ? error.code : String(error),
        );
      expect(await attempt({ company_id: "nope", from: addDays(TODAY, -7) })).toBe("company_not_found");
      expect(await attempt({ company_id: "shop", from: addDays(TODAY, -90) })).toBe("no_history_before");
      expect(await attempt({ company_id: "shop", from: TODAY })).toBe("no_sales_in_range");
      expect(await attempt({ company_id: "shop", from: addDays(TODAY, -3), to: addDays(TODAY, -5) })).toBe(
        "invalid_range",
      );
      expect(await count()).toBe(before);
    });
  });
}
