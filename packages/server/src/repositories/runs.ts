import type { PackedPlan } from "@pricing/engine";
import type { ListedRun, Recommendation, Run } from "@pricing/http-adapter";
import { ulid } from "ulid";
import type { Db } from "../db/database.js";
import { createFreshReadCache } from "../db/fresh-read-cache.js";
import type { RunRow } from "../db/schema.js";
import {
  decodeRecommendationDay,
  encodePackedDays,
  encodeRecommendationDays,
} from "./recommendation-days.js";

export interface NewRun {
  companyId: string;
  kind: "nightly" | "on_demand";
  asOf: string;
  createdAt: string;
  source: Run["source"];
  modelId: string | null;
  startDate: string;
  endDate: string;
  /** The API's items, or the plan as the planning thread packed it (stored without building the items). */
  recommendations: readonly Recommendation[] | PackedPlan;
}

export interface RecommendationFilter {
  startDate?: string | undefined;
  endDate?: string | undefined;
  productId?: string | undefined;
  /** Read each row's stored explanation too (null where the run was persisted without one). */
  explain?: boolean | undefined;
}

/** Day rows per INSERT: 4 columns x 250 stays far below SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 250;

async function insertRecommendations(trx: Db, runId: string, recommendations: NewRun["recommendations"]) {
  const encoded = isPacked(recommendations)
    ? encodePackedDays(recommendations)
    : encodeRecommendationDays(recommendations);
  const days = encoded.map((day) => ({ run_id: runId, ...day }));
  for (let i = 0; i < days.length; i += CHUNK) {
    await trx
      .insertInto("recommendation_days")
      .values(days.slice(i, i + CHUNK))
      .execute();
  }
}

function isPacked(items: NewRun["recommendations"]): items is PackedPlan {
  return !Array.isArray(items);
}

/** The run's item count and distinct products. */
function runSize(items: NewRun["recommendations"]): { products: number; count: number } {
  if (!isPacked(items))
    return { products: new Set(items.map((r) => r.product_id)).size, count: items.length };
  const ids = new Set<number>();
  for (let r = 0; r < items.count; r++) ids.add(items.text[r] as number);
  return { products: ids.size, count: items.count };
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  // better-sqlite3: SQLITE_CONSTRAINT_UNIQUE; pg: 23505 unique_violation.
  return (
    e?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    e?.code === "23505" ||
    /UNIQUE constraint/.test(e?.message ?? "")
  );
}

export function toRun(row: RunRow): Run {
  return {
    run_id: row.run_id,
    company_id: row.company_id,
    kind: row.kind,
    as_of: row.as_of,
    created_at: row.created_at,
    source: row.source,
    model_id: row.model_id,
    start_date: row.start_date,
    end_date: row.end_date,
    products: Number(row.products),
    recommendation_count: Number(row.recommendation_count),
  };
}

/**
 * Persisted runs and their recommendations. A run is written with all its rows in one transaction, with the
 * retention of older runs, so a reader or a crash sees the whole run or none of it; runs are never updated.
 */
export function createRunsRepository(db: Db) {
  const latest = createFreshReadCache<RunRow | undefined>(db);
  async function nightlyExists(companyId: string, asOf: string): Promise<RunRow | undefined> {
    return db
      .selectFrom("runs")
      .selectAll()
      .where("company_id", "=", companyId)
      .where("kind", "=", "nightly")
      .where("as_of", "=", asOf)
      .executeTakeFirst();
  }

  return {
    /**
     * Inserts the run and its rows, then deletes the company's runs of the same kind beyond the newest `keep`:
     * nightly and on-demand runs are counted apart, so computes never delete a nightly run. Returns null when a
     * nightly run for that company and day already exists (the unique index decides, across processes).
     */
    async insert(run: NewRun, keep: number): Promise<Run | null> {
      const size = runSize(run.recommendations);
      const row: RunRow = {
        run_id: `run_${ulid()}`,
        company_id: run.companyId,
        kind: run.kind,
        as_of: run.asOf,
        created_at: run.createdAt,
        source: run.source,
        model_id: run.modelId,
        start_date: run.startDate,
        end_date: run.endDate,
        products: size.products,
        recommendation_count: size.count,
      };
      try {
        await db.transaction().execute(async (trx) => {
          await trx.insertInto("runs").values(row).execute();
          await insertRecommendations(trx, row.run_id, run.recommendations);
          const stale = await trx
            .selectFrom("runs")
            .select("run_id")
            .where("company_id", "=", run.companyId)
            .where("kind", "=", run.kind)
            .orderBy("created_at", "desc")
            .orderBy("run_id", "desc")
            .offset(keep)
            .limit(1_000_000)
            .execute();
          if (stale.length > 0) {
            const ids = stale.map((s) => s.run_id);
            // Rows first: PostgreSQL and SQLite both cascade, but explicit deletes do not depend on the pragma.
            await trx.deleteFrom("recommendation_days").where("run_id", "in", ids).execute();
            await trx.deleteFrom("runs").where("run_id", "in", ids).execute();
          }
        });
      } catch (error) {
        // Only the day's nightly run already being there is "lost the race"; any other violation is a bug.
        if (run.kind === "nightly" && isUniqueViolation(error)) {
          const winner = await nightlyExists(run.companyId, run.asOf);
          if (winner && winner.run_id !== row.run_id) return null;
        }
        throw error;
      }
      return toRun(row);
    },

    nightlyExists,

    /** The run `runsAgo` places behind the newest (0 = newest), or undefined. */
    async atOffset(companyId: string, runsAgo: number): Promise<RunRow | undefined> {
      // Every GET /v2/recommendations asks this; a new run (or any other change) empties the cache.
      return latest.get(`${companyId}\n${runsAgo}`, () =>
        db
          .selectFrom("runs")
          .selectAll()
          .where("company_id", "=", companyId)
          .orderBy("created_at", "desc")
          .orderBy("run_id", "desc")
          .offset(runsAgo)
          .limit(1)
          .executeTakeFirst(),
      );
    },

    async list(
      companyId: string,
      limit: number,
      offset: number,
    ): Promise<{ total: number; runs: ListedRun[] }> {
      const [count, rows] = await Promise.all([
        db
          .selectFrom("runs")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("company_id", "=", companyId)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("runs")
          .selectAll()
          .where("company_id", "=", companyId)
          .orderBy("created_at", "desc")
          .orderBy("run_id", "desc")
          .offset(offset)
          .limit(limit)
          .execute(),
      ]);
      return { total: Number(count.n), runs: rows.map((r, i) => ({ ...toRun(r), runs_ago: offset + i })) };
    },

    async recommendations(runId: string, filter: RecommendationFilter): Promise<Recommendation[]> {
      let q = db.selectFrom("recommendation_days").select(["date", "items"]).where("run_id", "=", runId);
      if (filter.startDate !== undefined) q = q.where("date", ">=", filter.startDate);
      if (filter.endDate !== undefined) q = q.where("date", "<=", filter.endDate);
      // Without `explain` the explanations are neither read nor parsed, and the items have no `explanation` key.
      const explain = filter.explain === true;
      const days = await (explain ? q.select("explanations") : q).orderBy("date").execute();
      return days.flatMap((day) => decodeRecommendationDay(day, explain, filter.productId));
    },
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
