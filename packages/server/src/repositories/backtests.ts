import {
  type BacktestFigures,
  BacktestFiguresSchema,
  type BacktestProduct,
  BacktestProductSchema,
  type BacktestReport,
  type Refit,
} from "@pricing/engine";
import { z } from "zod";
import type { Db } from "../db/database.js";
import type { SavedBacktestRow } from "../db/schema.js";

/** A saved backtest as the console reads it: the report without its rows, who ran it and when. */
export interface SavedBacktest {
  backtest_id: string;
  company_id: string;
  created_at: string;
  by: string;
  from: string;
  to: string;
  refit: Refit;
  summary: BacktestFigures;
  products: BacktestProduct[];
}

const productsSchema = z.array(BacktestProductSchema);

function toSaved(row: SavedBacktestRow): SavedBacktest {
  return {
    backtest_id: row.backtest_id,
    company_id: row.company_id,
    created_at: row.created_at,
    by: row.by,
    from: row.from_date,
    to: row.to_date,
    refit: row.refit,
    summary: BacktestFiguresSchema.parse(JSON.parse(row.summary)),
    products: productsSchema.parse(JSON.parse(row.products)),
  };
}

/** Saved backtest reports (migration 0013): written by `pricing backtest --save`, listed by the console. */
export function createBacktestsRepository(db: Db) {
  return {
    async insert(
      report: BacktestReport,
      saved: { backtest_id: string; created_at: string; by: string },
    ): Promise<SavedBacktest> {
      const row: SavedBacktestRow = {
        backtest_id: saved.backtest_id,
        company_id: report.company_id,
        created_at: saved.created_at,
        by: saved.by,
        from_date: report.from,
        to_date: report.to,
        refit: report.refit,
        summary: JSON.stringify(report.summary),
        products: JSON.stringify(report.products),
      };
      await db.insertInto("backtests").values(row).execute();
      return toSaved(row);
    },

    async get(backtestId: string): Promise<SavedBacktest | undefined> {
      const row = await db
        .selectFrom("backtests")
        .selectAll()
        .where("backtest_id", "=", backtestId)
        .executeTakeFirst();
      return row && toSaved(row);
    },

    /** A company's saved backtests, newest first, and how many it has. */
    async list(
      companyId: string,
      page: { limit: number; offset: number },
    ): Promise<{ total: number; backtests: SavedBacktest[] }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom("backtests")
          .selectAll()
          .where("company_id", "=", companyId)
          .orderBy("created_at", "desc")
          .orderBy("backtest_id", "desc")
          .limit(page.limit)
          .offset(page.offset)
          .execute(),
        db
          .selectFrom("backtests")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("company_id", "=", companyId)
          .executeTakeFirstOrThrow(),
      ]);
      return { total: Number(count.n), backtests: rows.map(toSaved) };
    },
  };
}

export type BacktestsRepository = ReturnType<typeof createBacktestsRepository>;
