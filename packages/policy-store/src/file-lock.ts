import { link, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";

/** Who holds a lock; written whole into the lock file before it appears (via link), so never partial. */
interface LockOwner {
  pid: number;
  host: string;
  token: string;
  acquired_at: number;
}

export interface FileLockOptions {
  /** A lock whose holder is older than this is broken even if its process looks alive (ms). */
  staleMs: number;
  /** Give up acquiring after this long (ms). */
  timeoutMs: number;
}

/** The lock could not be acquired in time: another process holds it and is alive and recent. */
export class LockTimeoutError extends Error {
  readonly code = "lock_timeout";
  constructor(readonly lockPath: string) {
    super(`timed out waiting for lock ${lockPath}`);
    this.name = "LockTimeoutError";
  }
}

let tokenCounter = 0;
const HOST = hostname();

function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return !isErrno(error, "ESRCH");
  }
}

async function readOwner(path: string): Promise<{ owner: LockOwner | null; mtimeMs: number } | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    try {
      return { owner: JSON.parse(text) as LockOwner, mtimeMs: info.mtimeMs };
    } catch {
      return { owner: null, mtimeMs: info.mtimeMs };
    }
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  }
}

function isStale(found: { owner: LockOwner | null; mtimeMs: number }, staleMs: number): boolean {
  const { owner } = found;
  const since = owner?.acquired_at ?? found.mtimeMs;
  if (Date.now() - since > staleMs) return true;
  // A pid is only meaningful on the host that wrote it.
  return owner !== null && owner.host === HOST && !pidAlive(owner.pid);
}

/**
 * Removes a stale lock without ever deleting a lock someone else took in the meantime: the lock is
 * first renamed aside (atomic), then checked; a lock moved by mistake is linked back if the slot is free.
 */
async function breakLock(lockPath: string, stale: LockOwner | null, myToken: string): Promise<void> {
  const aside = `${lockPath}.broken-${myToken}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return;
    throw error;
  }
  const moved = await readOwner(aside);
  if (moved !== undefined && moved.owner !== null && stale !== null && moved.owner.token !== stale.token) {
    await link(aside, lockPath).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

/** Deterministic backoff (no randomness): grows to 25 ms, offset by pid so waiters spread out. */
function backoffMs(attempt: number): number {
  return Math.min(25, 1 + attempt) + (process.pid % 5);
}

/**
 * Runs `fn` while holding an exclusive, cross-process lock file at `lockPath`.
 * Recovery: a lock whose holder process is dead (same host) or older than `staleMs` is broken.
 */
export async function withFileLock<T>(
  lockPath: string,
  options: FileLockOptions,
  fn: () => Promise<T>,
): Promise<T> {
  tokenCounter += 1;
  const token = `${process.pid}-${process.hrtime.bigint()}-${tokenCounter}`;
  const owner: LockOwner = { pid: process.pid, host: HOST, token, acquired_at: Date.now() };
  const candidate = `${lockPath}.${token}`;
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        // Rewritten per attempt so the age others judge staleness by starts at acquisition.
        owner.acquired_at = Date.now();
        await writeFile(candidate, JSON.stringify(owner));
        await link(candidate, lockPath);
        break;
      } catch (error) {
        if (!isErrno(error, "EEXIST")) throw error;
      }
      const found = await readOwner(lockPath);
      if (found === undefined) continue;
      if (isStale(found, options.staleMs)) {
        await breakLock(lockPath, found.owner, token);
        continue;
      }
      if (Date.now() > deadline) throw new LockTimeoutError(lockPath);
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    }
  } finally {
    await unlink(candidate).catch(() => undefined);
  }
  try {
    return await fn();
  } finally {
    const current = await readOwner(lockPath);
    if (current?.owner?.token === token) await unlink(lockPath).catch(() => undefined);
  }
}

/**
 * Removes the lock at `lockPath` if its holder is dead or older than `staleMs` (what a waiter would break);
 * with `dryRun`, only says whether it would. True when the lock was (or would be) removed.
 */
export async function sweepStaleLock(lockPath: string, staleMs: number, dryRun: boolean): Promise<boolean> {
  const found = await readOwner(lockPath);
  if (found === undefined || !isStale(found, staleMs)) return false;
  if (!dryRun) {
    tokenCounter += 1;
    await breakLock(lockPath, found.owner, `${process.pid}-sweep-${tokenCounter}`);
  }
  return true;
}
