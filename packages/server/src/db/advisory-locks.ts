import { sql } from "kysely";
import type { Db } from "../db/database.js";

/** The company's training lock is held by another process (a worker still running an expired job). */
export class CompanyLockBusyError extends Error {
  constructor(readonly companyId: string) {
    super(`another process holds the training lock of ${companyId}`);
    this.name = "CompanyLockBusyError";
  }
}

/** Namespace of the advisory locks taken here (the first key of the two-key form), so other users cannot collide. */
const LOCK_SPACE = 7_013;

/**
 * Runs `work` holding the company's training lock across processes. On PostgreSQL: a session advisory lock on one
 * pooled connection held for the whole run; the database frees it when that session ends, so a killed worker
 * never leaves it behind, while a worker that is only slow (its job expired and was handed to another) keeps it
 * and the other attempt waits for its retry. The key includes the schema, so test schemas never contend.
 * SQLite is one machine: the operations table's unique index and the in-process slots are the lock there.
 */
export async function withCompanyLock<T>(
  db: Db,
  postgres: boolean,
  companyId: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!postgres) return work();
  return db.connection().execute(async (session) => {
    const key = sql`hashtext(current_schema() || ':' || ${companyId})`;
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(${LOCK_SPACE}, ${key}) as locked`.execute(session);
    if (rows[0]?.locked !== true) throw new CompanyLockBusyError(companyId);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_SPACE}, ${key})`.execute(session).catch(() => undefined);
    }
  });
}

/** Runs `work` holding a PostgreSQL advisory lock of `name` (waiting for it): one process at a time sets it up. */
export async function withSetupLock<T>(db: Db, name: string, work: () => Promise<T>): Promise<T> {
  return db.connection().execute(async (session) => {
    const key = sql`hashtext(${`setup:${name}`})`;
    await sql`select pg_advisory_lock(${LOCK_SPACE}, ${key})`.execute(session);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_SPACE}, ${key})`.execute(session).catch(() => undefined);
    }
  });
}
