import type { Explanation, ListedRun, Recommendation, Run } from "@pricing/http-adapter";
import { type Insertable, PostgresAdapter, sql } from "kysely";
import { ulid } from "ulid";
import type { Db } from "../db/database.js";
import { createFreshReadCache } from "../db/fresh-read-cache.js";
import type { RecommendationsTable, RunRow } from "../db/schema.js";

export interface NewRun {
  companyId: string;
  kind: "nightly" | "on_demand";
  asOf: string;
  createdAt: string;
  source: Run["source"];
  modelId: string | null;
  startDate: string;
  endDate: string;
  recommendations: readonly Recommendation[];
}

export interface RecommendationFilter {
  startDate?: string | undefined;
  endDate?: string | undefined;
  productId?: string | undefined;
  /** Read each row's stored explanation too (null where the run was persisted without one). */
  explain?: boolean | undefined;
}

/** Rows per INSERT: 15 columns x 500 stays far below SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

function recommendationRow(
  runId: string,
  { explanation, ...r }: Recommendation,
): Insertable<RecommendationsTable> {
  return {
    run_id: runId,
    ...r,
    exploratory: r.exploratory === null ? null : r.exploratory ? 1 : 0,
    explanation: explanation == null ? null : JSON.stringify(explanation),
  };
}

/** The `recommendations` columns a run writes, with their PostgreSQL types (`json_to_recordset` reads them by name). */
const ROW_COLUMNS = [
  ["product_id", "text"],
  ["date", "text"],
  ["price", "float8"],
  ["currency", "text"],
  ["base_price", "float8"],
  ["rule_price", "float8"],
  ["expected_units", "float8"],
  ["expected_revenue", "float8"],
  ["source", "text"],
  ["model_id", "text"],
  ["override_id", "text"],
  ["lowest_price_30d", "float8"],
  ["expected_units_p10", "float8"],
  ["expected_units_p90", "float8"],
  // The items' own JSON shapes, stored as the table's types.
  ["exploratory", "boolean", "int4"],
  ["explanation", "json", "text"],
] as const satisfies readonly (readonly [Exclude<keyof RecommendationsTable, "run_id">, string, string?])[];
type UnwrittenColumns = Exclude<keyof RecommendationsTable, "run_id" | (typeof ROW_COLUMNS)[number][0]>;
/** Fails to compile when a column is added to the table but not to `ROW_COLUMNS`. */
const EVERY_COLUMN_WRITTEN: [UnwrittenColumns] extends [never] ? true : never = true;

/**
 * A run's rows. PostgreSQL takes them as one JSON document (`json_to_recordset`): a nightly run of 9,000 rows was
 * 18 statements of 7,500 bound parameters each, and compiling, binding and parsing those parameters was most of a
 * worker's own CPU per company (bench:scale); one `JSON.stringify` and the server's JSON parser cost a fraction.
 * SQLite binds in-process, so plain chunked inserts cost it little.
 */
async function insertRecommendations(trx: Db, runId: string, recommendations: readonly Recommendation[]) {
  if (EVERY_COLUMN_WRITTEN && trx.getExecutor().adapter instanceof PostgresAdapter) {
    const names = sql.join(ROW_COLUMNS.map(([name]) => sql.ref(name)));
    const record = sql.join(ROW_COLUMNS.map(([name, type]) => sql`${sql.ref(name)} ${sql.raw(type)}`));
    const values = sql.join(
      ROW_COLUMNS.map(([name, , stored]) =>
        stored === undefined ? sql.ref(name) : sql`${sql.ref(name)}::${sql.raw(stored)}`,
      ),
    );
    await sql`insert into recommendations (run_id, ${names})
      select ${runId}, ${values} from json_to_recordset(${JSON.stringify(recommendations)}::json) as r(${record})`.execute(
      trx,
    );
    return;
  }
  const rows = recommendations.map((r) => recommendationRow(runId, r));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("recommendations")
      .values(rows.slice(i, i + CHUNK))
      .execute();
  }
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
        products: new Set(run.recommendations.map((r) => r.product_id)).size,
        recommendation_count: run.recommendations.length,
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
            await trx.deleteFrom("recommendations").where("run_id", "in", ids).execute();
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
      let q = db
        .selectFrom("recommendations")
        .select([
          "product_id",
          "date",
          "price",
          "currency",
          "base_price",
          "rule_price",
          "expected_units",
          "expected_revenue",
          "source",
          "model_id",
          "expected_units_p10",
          "expected_units_p90",
          "exploratory",
          "override_id",
          "lowest_price_30d",
        ])
        .where("run_id", "=", runId);
      if (filter.startDate !== undefined) q = q.where("date", ">=", filter.startDate);
      if (filter.endDate !== undefined) q = q.where("date", "<=", filter.endDate);
      if (filter.productId !== undefined) q = q.where("product_id", "=", filter.productId);
      // Without `explain` the item has no `explanation` key at all: the plain answer (and its ETag) stays as before.
      const rows = await (filter.explain ? q.select("explanation") : q)
        .orderBy("date")
        .orderBy("product_id")
        .execute();
      // Rows persisted before migration 0005 read with nulls; PostgreSQL returns the 0/1 as a number too.
      return rows.map((r) => {
        const { explanation, ...rest } = r as typeof r & { explanation?: string | null };
        return {
          ...rest,
          exploratory: rest.exploratory === null ? null : Number(rest.exploratory) === 1,
          ...(filter.explain
            ? { explanation: explanation == null ? null : (JSON.parse(explanation) as Explanation) }
            : {}),
        };
      }) as Recommendation[];
    },
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
