import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { chmod, mkdir, open, readdir, readFile, rename, rmdir, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { sweepStaleLock, withFileLock } from "./file-lock.js";
import {
  assertValidKey,
  type ObjectStore,
  PreconditionFailedError,
  type PutCondition,
} from "./object-store.js";

/** Modes of the store's files and of the folders it creates. */
const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;

/** Points of a write at which a crash-test hook may run (and kill the process). */
export type WriteStep =
  | "lock-acquired"
  | "temp-written"
  | "temp-synced"
  | "renamed"
  | "dir-synced"
  | "unlinked";

export interface FsObjectStoreOptions {
  /** Folder holding the objects; created if missing. */
  root: string;
  /** fsync files and directories so a completed write survives power loss. Default true. */
  fsync?: boolean;
  /** A lock held longer than this is presumed abandoned (ms). Default 30 000. */
  lockStaleMs?: number;
  /** Give up waiting for a key's lock after this long (ms). Default 15 000. */
  lockTimeoutMs?: number;
  /** Test hook called at each step of a write, e.g. to SIGKILL the process there. */
  onWriteStep?: (step: WriteStep, key: string) => void;
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

/** The etag is the content's sha256, so it survives restarts and needs no side file. */
function etagOf(body: Uint8Array): string {
  return createHash("sha256").update(body).digest("hex");
}

let tempCounter = 0;

/** Hidden names of temporary files and lock candidates (never the `.name.lock` itself). */
const LEFTOVER = /^\..+\.(tmp-\d+-\d+|lock\..+)$/;
/** A key's lock file itself (`.name.lock`). */
const LOCK_FILE = /^\..+\.lock$/;

/**
 * An {@link ObjectStore} on a local folder. Writes go to a hidden temporary file that is fsynced and
 * renamed over the key (then the directory is fsynced), so readers never see partial content and a crash
 * leaves either the old or the new object. Every mutation of a key holds that key's lock file, which makes
 * conditional puts atomic across processes; locks of dead processes are broken.
 */
export class FsObjectStore implements ObjectStore {
  readonly root: string;
  private readonly fsync: boolean;
  private readonly lock: { staleMs: number; timeoutMs: number };
  private readonly onWriteStep: ((step: WriteStep, key: string) => void) | undefined;
  private readonly leftoverAgeMs: number;

  constructor(options: FsObjectStoreOptions) {
    this.root = resolve(options.root);
    this.fsync = options.fsync ?? true;
    this.lock = { staleMs: options.lockStaleMs ?? 30_000, timeoutMs: options.lockTimeoutMs ?? 15_000 };
    this.onWriteStep = options.onWriteStep;
    this.leftoverAgeMs = 2 * Math.max(this.lock.staleMs, this.lock.timeoutMs);
  }

  async get(key: string): Promise<{ body: Uint8Array; etag: string } | null> {
    const body = await this.read(this.pathOf(key));
    return body === null ? null : { body, etag: etagOf(body) };
  }

  async put(key: string, body: Uint8Array, condition?: PutCondition): Promise<{ etag: string }> {
    const path = this.pathOf(key);
    // A concurrent delete may remove the (then empty) folder between mkdir and the write: redo the mkdir.
    for (let attempt = 0; ; attempt += 1) {
      await this.ensureDir(dirname(path));
      try {
        return await this.withKeyLock(key, path, async () => {
          if (condition !== undefined) await this.check(key, path, condition);
          await this.writeAtomic(key, path, body);
          return { etag: etagOf(body) };
        });
      } catch (error) {
        if (!isErrno(error, "ENOENT") || attempt >= 3) throw error;
      }
    }
  }

  async delete(key: string, condition?: { readonly ifMatch: string }): Promise<boolean> {
    const path = this.pathOf(key);
    const dir = dirname(path);
    let removed: boolean;
    try {
      removed = await this.withKeyLock(key, path, async () => {
        if (condition !== undefined) await this.check(key, path, condition);
        try {
          await unlink(path);
        } catch (error) {
          if (isErrno(error, "ENOENT")) return false;
          throw error;
        }
        this.step("unlinked", key);
        await this.syncDir(dir);
        return true;
      });
    } catch (error) {
      // No folder means no object (the lock file could not even be created there).
      if (!isErrno(error, "ENOENT")) throw error;
      if (condition !== undefined) throw new PreconditionFailedError(key, "ifMatch");
      return false;
    }
    // Leaves no empty folders behind; fails harmlessly when others still live there.
    if (removed) await rmdir(dir).catch(() => undefined);
    return removed;
  }

  async list(prefix: string): Promise<string[]> {
    const cut = prefix.lastIndexOf("/");
    const base = cut < 0 ? "" : prefix.slice(0, cut);
    const keys: string[] = [];
    await this.walk(base, keys);
    return keys.filter((k) => k.startsWith(prefix)).sort();
  }

  async sweepStaleLocks({ dryRun }: { dryRun: boolean }): Promise<string[]> {
    const swept: string[] = [];
    const visit = async (relDir: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(relDir === "" ? this.root : join(this.root, relDir), { withFileTypes: true });
      } catch (error) {
        if (isErrno(error, "ENOENT")) return;
        throw error;
      }
      for (const entry of entries) {
        const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
        if (entry.isDirectory()) await visit(rel);
        else if (LOCK_FILE.test(entry.name)) {
          if (await sweepStaleLock(join(this.root, rel), this.lock.staleMs, dryRun)) swept.push(rel);
        }
      }
    };
    await visit("");
    return swept.sort();
  }

  private async walk(relDir: string, out: string[]): Promise<void> {
    let entries: Dirent[];
    const dir = relDir === "" ? this.root : join(this.root, relDir);
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) {
        await this.sweepLeftover(join(dir, entry.name));
        continue;
      }
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      if (entry.isDirectory()) await this.walk(rel, out);
      else if (entry.isFile()) out.push(rel);
    }
  }

  /**
   * Removes a temporary or candidate-lock file a killed process left behind. Only names that are never
   * a live lock qualify, and only once older than any live writer or waiter could hold them.
   */
  private async sweepLeftover(path: string): Promise<void> {
    if (!LEFTOVER.test(basename(path))) return;
    try {
      const info = await stat(path);
      if (Date.now() - info.mtimeMs > this.leftoverAgeMs) await unlink(path);
    } catch {
      // Already gone, or removed by another sweeper.
    }
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return join(this.root, ...key.split("/"));
  }

  private async read(path: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(path));
    } catch (error) {
      if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return null;
      throw error;
    }
  }

  private async check(key: string, path: string, condition: PutCondition): Promise<void> {
    const current = await this.read(path);
    if ("ifAbsent" in condition) {
      if (current !== null) throw new PreconditionFailedError(key, "ifAbsent");
    } else if (current === null || etagOf(current) !== condition.ifMatch) {
      throw new PreconditionFailedError(key, "ifMatch");
    }
  }

  private withKeyLock<T>(key: string, path: string, fn: () => Promise<T>): Promise<T> {
    const lockPath = join(dirname(path), `.${basename(path)}.lock`);
    return withFileLock(lockPath, this.lock, async () => {
      this.step("lock-acquired", key);
      return fn();
    });
  }

  private async writeAtomic(key: string, path: string, body: Uint8Array): Promise<void> {
    tempCounter += 1;
    const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${tempCounter}`);
    // Artifacts are the company's trained policies: owner-only, whatever the umask (chmod, as open's mode only
    // ever loses bits to it).
    const handle = await open(temp, "wx", PRIVATE_FILE_MODE);
    try {
      await handle.chmod(PRIVATE_FILE_MODE);
      await handle.writeFile(body);
      this.step("temp-written", key);
      if (this.fsync) await handle.sync();
      this.step("temp-synced", key);
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    this.step("renamed", key);
    await this.syncDir(dirname(path));
    this.step("dir-synced", key);
  }

  /** mkdir -p that also fsyncs each parent whose entry it creates, so new folders survive power loss. */
  private async ensureDir(dir: string): Promise<void> {
    const created = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    if (created === undefined) return;
    let current = dir;
    const toSync: string[] = [];
    while (current.length >= created.length) {
      await chmod(current, PRIVATE_DIR_MODE);
      current = dirname(current);
      toSync.push(current);
    }
    for (const d of toSync) await this.syncDir(d);
  }

  private async syncDir(dir: string): Promise<void> {
    if (!this.fsync) return;
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  private step(step: WriteStep, key: string): void {
    this.onWriteStep?.(step, key);
  }
}
