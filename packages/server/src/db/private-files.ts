import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** The mode of every file holding data or secrets (the database, its backups), and of the folders holding them. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** What SQLite writes beside a database file; it creates them with the database file's own mode. */
const SQLITE_SIDE_FILES = ["-wal", "-shm", "-journal"];

/**
 * Makes `file` (created empty when absent) and the SQLite files beside it owner-only, before SQLite opens it:
 * SQLite creates a database 0644 less the umask, and its -wal and -shm with the database's mode. The database
 * holds webhook signing secrets in clear. chmod, since a umask can only take bits from a create's mode.
 */
export function makeSqliteFilePrivate(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  for (const path of [file, ...SQLITE_SIDE_FILES.map((side) => `${file}${side}`)]) {
    if (existsSync(path) && (statSync(path).mode & 0o777) !== PRIVATE_FILE_MODE)
      chmodSync(path, PRIVATE_FILE_MODE);
  }
}

/** The folder's mode when others may read, write or enter it (null when they may not), after setting it 0700. */
export function makeDirPrivate(dir: string): number | null {
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  chmodSync(dir, PRIVATE_DIR_MODE);
  return mode;
}

/** mkdir -p, each folder it creates 0700 whatever the umask; folders that were there are left as they are. */
export function makePrivateDirs(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (created === undefined) return;
  for (let current = dir; current.length >= created.length; current = dirname(current)) {
    chmodSync(current, PRIVATE_DIR_MODE);
  }
}
