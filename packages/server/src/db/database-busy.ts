import { setTimeout as sleep } from "node:timers/promises";

/** Seconds a client is told to wait after meeting a busy database: a lock holder's transaction is short. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * SQLite: `SQLITE_BUSY` and its extended codes (another connection holds the write lock past the busy timeout, or
 * committed past this transaction's snapshot) and `SQLITE_LOCKED`. PostgreSQL: `55P03` lock_not_available
 * (lock_timeout), `40P01` deadlock_detected, `40001` serialization_failure. Each is the database refusing for now,
 * not a fault: the same request succeeds when retried.
 */
const PG_BUSY_STATES = new Set(["55P03", "40P01", "40001"]);

/** Whether `error` (or an error in its `cause` chain) is the database being busy. */
export function isDatabaseBusy(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (/^SQLITE_(BUSY|LOCKED)/.test(code) || PG_BUSY_STATES.has(code)))
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Pause between two tries of {@link retryWhileBusy}. */
const BUSY_RETRY_PAUSE_MS = 1000;

/**
 * Tries `write` again, after a pause, while it fails because the database is busy, until `forMs` have passed: for
 * a writer off the request path that should outwait a long lock (an import's last step) rather than lose its write.
 * A request answers 503 instead (`translateError`). `signal` ends the waiting (the last error stands).
 */
export async function retryWhileBusy<T>(
  write: () => Promise<T>,
  forMs: number,
  signal?: AbortSignal,
): Promise<T> {
  const started = performance.now();
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!isDatabaseBusy(error) || signal?.aborted || performance.now() - started >= forMs) throw error;
      await sleep(BUSY_RETRY_PAUSE_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}
