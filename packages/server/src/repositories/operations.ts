import type { Clock } from "../clock.js";
import type { Db } from "../db/database.js";
import type { OperationRow, OperationsTable } from "../db/schema.js";

export type OperationStatus = OperationsTable["status"];
export const ACTIVE_STATUSES: readonly OperationStatus[] = ["queued", "running"];

export interface NewOperation {
  operation_id: string;
  kind: OperationsTable["kind"];
  company_id: string;
  input: unknown;
}

export type CreatedOperation = { created: OperationRow } | { active: OperationRow };

/**
 * Asynchronous operations (migration 0007). The partial unique index allows one queued or running operation of a
 * kind per company in the whole database, so `create` is the cross-process "one training per company" check: the
 * loser of a race is handed the winner's row. Updates name the statuses they move from, so a worker whose job was
 * retried elsewhere, or an operation already finished, is left alone (the update reports false).
 */
export function createOperationsRepository(db: Db, clock: Clock) {
  const now = () => clock().toISOString();
  const active = (companyId: string, kind: OperationsTable["kind"]) =>
    db
      .selectFrom("operations")
      .selectAll()
      .where("company_id", "=", companyId)
      .where("kind", "=", kind)
      .where("status", "in", ACTIVE_STATUSES)
      .executeTakeFirst();
  const changed = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) > 0;

  return {
    async create(op: NewOperation): Promise<CreatedOperation> {
      const at = now();
      const row: OperationRow = {
        operation_id: op.operation_id,
        kind: op.kind,
        company_id: op.company_id,
        status: "queued",
        input: JSON.stringify(op.input),
        progress: null,
        result: null,
        error_code: null,
        error_message: null,
        model_id: null,
        attempts: 0,
        owner: null,
        created_at: at,
        started_at: null,
        updated_at: at,
      };
      for (let attempt = 0; attempt < 3; attempt++) {
        const inserted = await db
          .insertInto("operations")
          .values(row)
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return { created: row };
        const winner = await active(op.company_id, op.kind);
        // The winner may have finished between the insert and the read: try again.
        if (winner) return { active: winner };
      }
      throw new Error(
        `could not create an operation for ${op.company_id}: the company's operations keep changing`,
      );
    },

    async get(operationId: string): Promise<OperationRow | undefined> {
      return db
        .selectFrom("operations")
        .selectAll()
        .where("operation_id", "=", operationId)
        .executeTakeFirst();
    },

    active,

    /**
     * queued (or running, a retried job) -> running by `owner` (`process-owner.ts`), counting the attempt; false
     * when it is finished.
     */
    async start(operationId: string, owner: string): Promise<boolean> {
      const at = now();
      return changed(
        await db
          .updateTable("operations")
          .set((eb) => ({
            status: "running",
            owner,
            attempts: eb("attempts", "+", 1),
            started_at: at,
            updated_at: at,
          }))
          .where("operation_id", "=", operationId)
          .where("status", "in", ACTIVE_STATUSES)
          .executeTakeFirst(),
      );
    },

    async progress(operationId: string, fraction: number): Promise<void> {
      await db
        .updateTable("operations")
        .set({ progress: Math.min(1, Math.max(0, fraction)), updated_at: now() })
        .where("operation_id", "=", operationId)
        .where("status", "=", "running")
        .execute();
    },

    /** The artifact about to be committed, so that a retry after a crash past the commit finishes instead. */
    async committing(operationId: string, modelId: string, pending: unknown): Promise<void> {
      await db
        .updateTable("operations")
        .set({ model_id: modelId, result: JSON.stringify(pending), updated_at: now() })
        .where("operation_id", "=", operationId)
        .execute();
    },

    async succeed(operationId: string, result: unknown): Promise<boolean> {
      return changed(
        await db
          .updateTable("operations")
          .set({ status: "succeeded", progress: 1, result: JSON.stringify(result), updated_at: now() })
          .where("operation_id", "=", operationId)
          .where("status", "in", ACTIVE_STATUSES)
          .executeTakeFirst(),
      );
    },

    async fail(operationId: string, error: { code: string; message: string }): Promise<boolean> {
      return changed(
        await db
          .updateTable("operations")
          .set({
            status: "failed",
            error_code: error.code,
            error_message: error.message,
            updated_at: now(),
          })
          .where("operation_id", "=", operationId)
          .where("status", "in", ACTIVE_STATUSES)
          .executeTakeFirst(),
      );
    },

    /** Operations left running, with their owners. */
    async running(): Promise<OperationRow[]> {
      return db.selectFrom("operations").selectAll().where("status", "=", "running").execute();
    },

    /**
     * Fails the company's running operation when nothing has touched it since `beforeIso` (its process died and
     * no queue will retry it: the embedded mode); true when one was failed.
     */
    async failAbandoned(
      companyId: string,
      kind: OperationsTable["kind"],
      beforeIso: string,
      error: { code: string; message: string },
    ): Promise<boolean> {
      return changed(
        await db
          .updateTable("operations")
          .set({ status: "failed", error_code: error.code, error_message: error.message, updated_at: now() })
          .where("company_id", "=", companyId)
          .where("kind", "=", kind)
          .where("status", "in", ACTIVE_STATUSES)
          .where("updated_at", "<", beforeIso)
          .executeTakeFirst(),
      );
    },
  };
}

export type OperationsRepository = ReturnType<typeof createOperationsRepository>;
