import type { Db } from "../db/database.js";
import type { BatchOutcomesTable } from "../db/schema.js";

/** One company's outcome in one batch, as recorded (without the batch's own columns). */
export type RecordedOutcome = Pick<
  BatchOutcomesTable,
  "company_id" | "as_of" | "status" | "run_id" | "error"
>;

export interface RecordedBatch {
  batch_id: string;
  trigger: string;
  started_at: string;
  finished_at: string;
  outcomes: RecordedOutcome[];
}

/** What each nightly batch did for each company (migration 0002): written per company, read by `batch status`. */
export function createBatchOutcomesRepository(db: Db) {
  return {
    /**
     * One company's outcome in one batch. A queue's retried job records again under the same batch: its outcome
     * replaces a `failed` or `interrupted` one of an earlier attempt, never a `created` or `exists` one.
     */
    async record(row: BatchOutcomesTable): Promise<void> {
      const { batch_id: _batch, company_id: _company, ...attempt } = row;
      await db
        .insertInto("batch_outcomes")
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(["batch_id", "company_id"])
            .doUpdateSet(attempt)
            .where("batch_outcomes.status", "in", ["failed", "interrupted"]),
        )
        .execute();
    },

    /**
     * Companies some batch finished (created, exists or failed) at or after `iso`; an `interrupted` outcome does
     * not count, so a shutdown's leftovers run at the next start.
     */
    async companiesSince(iso: string): Promise<Set<string>> {
      const rows = await db
        .selectFrom("batch_outcomes")
        .select("company_id")
        .distinct()
        .where("started_at", ">=", iso)
        .where("status", "!=", "interrupted")
        .execute();
      return new Set(rows.map((r) => r.company_id));
    },

    /** Each company's outcome in the newest batch that ran it (companies never run are absent). */
    async latestByCompany(): Promise<Map<string, BatchOutcomesTable>> {
      const newest = db
        .selectFrom("batch_outcomes")
        .select(["company_id"])
        .select((eb) => eb.fn.max("finished_at").as("finished_at"))
        .groupBy("company_id")
        .as("newest");
      const rows = await db
        .selectFrom("batch_outcomes")
        .innerJoin(newest, (join) =>
          join
            .onRef("newest.company_id", "=", "batch_outcomes.company_id")
            .onRef("newest.finished_at", "=", "batch_outcomes.finished_at"),
        )
        .selectAll("batch_outcomes")
        .orderBy("batch_outcomes.batch_id")
        .execute();
      // On equal finishing times the later batch (ULID) wins.
      return new Map(rows.map((r) => [r.company_id, r]));
    },

    /** The newest `limit` batches, newest first, each with its per-company outcomes. */
    async recent(limit: number): Promise<RecordedBatch[]> {
      const recent = await db
        .selectFrom("batch_outcomes")
        .select(["batch_id", "trigger"])
        .select((eb) => [
          eb.fn.min("started_at").as("started_at"),
          eb.fn.max("finished_at").as("finished_at"),
        ])
        .groupBy(["batch_id", "trigger"])
        .orderBy("finished_at", "desc")
        // Batch ids are ULIDs: on equal timestamps the later batch still sorts first.
        .orderBy("batch_id", "desc")
        .limit(limit)
        .execute();
      const batches: RecordedBatch[] = [];
      for (const b of recent) {
        const rows = await db
          .selectFrom("batch_outcomes")
          .select(["company_id", "as_of", "status", "run_id", "error"])
          .where("batch_id", "=", b.batch_id)
          .orderBy("company_id")
          .execute();
        batches.push({
          batch_id: b.batch_id,
          trigger: b.trigger,
          started_at: String(b.started_at),
          finished_at: String(b.finished_at),
          outcomes: rows,
        });
      }
      return batches;
    },
  };
}

export type BatchOutcomesRepository = ReturnType<typeof createBatchOutcomesRepository>;
