import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { createPolicyStore, FsObjectStore, MemoryObjectStore, type ObjectStore } from "@pricing/policy-store";
import SqliteDatabase from "better-sqlite3";
import { keyRing } from "../auth/key-ring.js";
import { readSecrets } from "../auth/secret-file.js";
import type { Config } from "../config.js";
import { sqlitePath } from "./database.js";
import { makePrivateDirs, makeSqliteFilePrivate } from "./private-files.js";

/**
 * A backup is one SQLite file: the online backup of the data dir's database plus two tables of our own, the
 * policy store's objects (artifacts, slots, version claims) and a few facts about the backup. One file to keep,
 * readable with any SQLite tool, and restored all or nothing.
 */
export const BACKUP_FORMAT = "pricing-backup";
export const BACKUP_FORMAT_VERSION = 1;
const META_TABLE = "pricing_backup_meta";
const OBJECTS_TABLE = "pricing_backup_objects";
/** Tries to copy a company's store objects while trainings keep committing, before the backup gives up. */
const STORE_COPY_ATTEMPTS = 5;

export type BackupErrorCode =
  | "postgres_unsupported"
  | "no_database"
  | "backup_exists"
  | "not_a_backup"
  | "target_not_empty"
  | "target_in_use"
  | "pepper_missing"
  | "inconsistent_store";

/** A backup or restore refused or failed; nothing was written at the destination. */
export class BackupError extends Error {
  constructor(
    message: string,
    readonly code: BackupErrorCode,
  ) {
    super(message);
    this.name = "BackupError";
  }
}

export interface BackupReport {
  file: string;
  bytes: number;
  created_at: string;
  /** Objects of the policy store copied (artifact files, slot records, version claims). */
  store_objects: number;
  companies: number;
  /** Ids of the key peppers that made the stored secret-key hashes: a restore needs every one of them. */
  pepper_ids: string[];
}

export interface RestoreReport {
  file: string;
  data_dir: string;
  created_at: string;
  store_objects: number;
  companies: number;
  /** True when an existing database and store were replaced (`force`). */
  replaced: boolean;
  /** Pepper ids the backup's key hashes need that the target does not have (only with `ignorePepper`). */
  missing_pepper_ids: string[];
}

const POSTGRES_MESSAGE =
  "pricing db backup/restore cover the embedded SQLite database; on PostgreSQL use pg_dump (e.g. `pg_dump -Fc -f pricing.dump $PRICING_DATABASE_URL`) and pg_restore, and copy the artifacts folder (PRICING_ARTIFACTS_DIR) after the dump";

function refusePostgres(config: Config): void {
  if (config.databaseUrl) throw new BackupError(POSTGRES_MESSAGE, "postgres_unsupported");
}

/** A file name beside `path` (same folder, so a rename is atomic) that no other run uses. */
function besides(path: string, what: string): string {
  return `${path}.${what}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/**
 * Copies one company's store objects into `into`, in the order a training writes them reversed (slot record,
 * then version claims, then artifacts), so everything the copied slots name was written before it was listed;
 * then checks the copy with the store's own invariants, and copies again while a concurrent commit broke them.
 */
async function copyCompany(
  source: ObjectStore,
  prefix: string,
  put: (key: string, body: Uint8Array | null) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const copy = new MemoryObjectStore();
    const copied = new Map<string, Uint8Array>();
    const take = async (key: string) => {
      const object = await source.get(key);
      if (object === null) return;
      copied.set(key, object.body);
      await copy.put(key, object.body);
    };
    await take(`${prefix}slots.json`);
    for (const key of await source.list(`${prefix}versions/`)) await take(key);
    for (const key of await source.list(prefix)) if (!copied.has(key)) await take(key);
    const store = createPolicyStore({ objectStore: copy });
    const problems: string[] = [];
    for (const companyId of await store.listCompanies()) {
      problems.push(...(await store.checkConsistency(companyId)).problems);
    }
    if (problems.length === 0) {
      for (const [key, body] of copied) put(key, body);
      return;
    }
    if (attempt === STORE_COPY_ATTEMPTS) {
      throw new BackupError(
        `the policy store under ${prefix} kept changing or is inconsistent: ${problems.join("; ")}`,
        "inconsistent_store",
      );
    }
  }
}

/** The company prefixes (`companies/<id>/`) and the other keys of a store. */
async function storeLayout(store: ObjectStore): Promise<{ prefixes: string[]; others: string[] }> {
  const prefixes = new Set<string>();
  const others: string[] = [];
  for (const key of await store.list("")) {
    const match = /^(companies\/[^/]+\/)/.exec(key);
    if (match?.[1] !== undefined) prefixes.add(match[1]);
    else others.push(key);
  }
  return { prefixes: [...prefixes], others };
}

function openSqlite(file: string, readonly: boolean): SqliteDatabase.Database {
  const db = new SqliteDatabase(file, { readonly, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  return db;
}

/**
 * `pricing db backup FILE`: SQLite's online backup of the live database (a consistent snapshot while the server
 * writes), then the policy store's objects, company by company, each copy checked. Written beside FILE and
 * renamed into place, so FILE is either absent or a whole backup. Refuses an existing FILE unless `force`.
 */
export async function backupDatabase(
  config: Config,
  file: string,
  options: { force?: boolean } = {},
): Promise<BackupReport> {
  refusePostgres(config);
  const target = resolve(file);
  const source = sqlitePath(config.dataDir);
  if (!existsSync(source)) throw new BackupError(`no database at ${source}`, "no_database");
  if (existsSync(target) && options.force !== true) {
    throw new BackupError(`${target} exists; pass --force to overwrite it`, "backup_exists");
  }
  makePrivateDirs(dirname(target));
  const partial = besides(target, "partial");
  try {
    // The backup holds the webhook signing secrets in clear: owner-only from its first byte.
    makeSqliteFilePrivate(partial);
    const live = openSqlite(source, true);
    try {
      await live.backup(partial);
    } finally {
      live.close();
    }
    const out = openSqlite(partial, false);
    let objects = 0;
    let companies = 0;
    let pepperIds: string[];
    const createdAt = new Date().toISOString();
    try {
      // One self-contained file: no -wal beside it.
      out.pragma("journal_mode = DELETE");
      out.exec(
        `create table ${OBJECTS_TABLE} (key text primary key, body blob not null);
         create table ${META_TABLE} (key text primary key, value text not null);`,
      );
      const insert = out.prepare(`insert or replace into ${OBJECTS_TABLE} (key, body) values (?, ?)`);
      const put = (key: string, body: Uint8Array | null) => {
        if (body === null) return;
        insert.run(key, Buffer.from(body.buffer, body.byteOffset, body.byteLength));
        objects++;
      };
      const store = new FsObjectStore({ root: config.pricing.artifactsDir, fsync: false });
      const { prefixes, others } = await storeLayout(store);
      for (const prefix of prefixes) {
        const copied: [string, Uint8Array | null][] = [];
        await copyCompany(store, prefix, (key, body) => copied.push([key, body]));
        out.transaction(() => {
          for (const [key, body] of copied) put(key, body);
        })();
        companies++;
      }
      for (const key of others) put(key, (await store.get(key))?.body ?? null);
      pepperIds = (
        out
          .prepare("select distinct pepper_id from key_pairs where pepper_id is not null order by 1")
          .pluck()
          .all() as string[]
      ).filter((id) => id.length > 0);
      const meta = out.prepare(`insert into ${META_TABLE} (key, value) values (?, ?)`);
      out.transaction(() => {
        meta.run("format", BACKUP_FORMAT);
        meta.run("format_version", String(BACKUP_FORMAT_VERSION));
        meta.run("created_at", createdAt);
        meta.run("pepper_ids", JSON.stringify(pepperIds));
        meta.run("companies", String(companies));
      })();
      const check = out.pragma("integrity_check", { simple: true });
      if (check !== "ok") throw new Error(`the backup copy fails its integrity check: ${String(check)}`);
    } finally {
      out.close();
    }
    await rename(partial, target);
    return {
      file: target,
      bytes: (await stat(target)).size,
      created_at: createdAt,
      store_objects: objects,
      companies,
      pepper_ids: pepperIds,
    };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

interface BackupMeta {
  created_at: string;
  pepper_ids: string[];
}

function readMeta(backup: SqliteDatabase.Database, file: string): BackupMeta {
  let rows: { key: string; value: string }[];
  try {
    rows = backup.prepare(`select key, value from ${META_TABLE}`).all() as { key: string; value: string }[];
  } catch {
    throw new BackupError(`${file} is not a pricing backup (no ${META_TABLE} table)`, "not_a_backup");
  }
  const meta = new Map(rows.map((r) => [r.key, r.value]));
  if (meta.get("format") !== BACKUP_FORMAT || meta.get("format_version") !== String(BACKUP_FORMAT_VERSION)) {
    throw new BackupError(
      `${file} is not a ${BACKUP_FORMAT} version ${BACKUP_FORMAT_VERSION} file`,
      "not_a_backup",
    );
  }
  return {
    created_at: meta.get("created_at") ?? "",
    pepper_ids: JSON.parse(meta.get("pepper_ids") ?? "[]") as string[],
  };
}

/** Whether the data dir already holds anything a restore would overwrite: partners, companies or artifacts. */
async function holdsData(config: Config): Promise<boolean> {
  const db = sqlitePath(config.dataDir);
  if (existsSync(db)) {
    const handle = openSqlite(db, true);
    try {
      const tables = new Set(
        handle.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[],
      );
      for (const table of ["partners", "companies"]) {
        if (tables.has(table) && handle.prepare(`select 1 from ${table} limit 1`).get() !== undefined)
          return true;
      }
    } finally {
      handle.close();
    }
  }
  try {
    return (await readdir(config.pricing.artifactsDir)).some((name) => !name.startsWith("."));
  } catch {
    return false;
  }
}

/**
 * Refuses a database another process has open (a running server, a CLI command): leaving WAL mode needs every
 * other connection closed, and SQLite answers busy at once otherwise. Replacing the file under a live server
 * would let it write its old pages into the restored database's WAL.
 */
function refuseInUse(config: Config): void {
  const db = sqlitePath(config.dataDir);
  if (!existsSync(db)) return;
  const handle = new SqliteDatabase(db, { fileMustExist: true });
  try {
    handle.pragma("busy_timeout = 0");
    const mode = handle.pragma("journal_mode = DELETE", { simple: true });
    if (mode !== "delete") throw new Error(`journal mode stayed ${String(mode)}`);
  } catch (error) {
    throw new BackupError(
      `the database at ${db} is in use (${(error as Error).message}); stop the server and every pricing command on this data dir first`,
      "target_in_use",
    );
  } finally {
    handle.close();
  }
}

/**
 * `pricing db restore FILE`: checks the backup and the target (not in use; empty unless `force`; the key
 * peppers its hashes need are configured, unless `ignorePepper`), builds the database and the artifacts folder
 * beside the live ones and checks them, then swaps them in by renames. Any failure before the swap leaves the
 * data dir as it was.
 */
export async function restoreDatabase(
  config: Config,
  file: string,
  options: { force?: boolean; ignorePepper?: boolean } = {},
): Promise<RestoreReport> {
  refusePostgres(config);
  const source = resolve(file);
  if (!existsSync(source)) throw new BackupError(`no backup at ${source}`, "not_a_backup");
  let backup: SqliteDatabase.Database;
  try {
    backup = openSqlite(source, true);
  } catch (error) {
    throw new BackupError(`${source} is not a SQLite file: ${(error as Error).message}`, "not_a_backup");
  }
  const dbPath = sqlitePath(config.dataDir);
  const artifactsDir = config.pricing.artifactsDir;
  const stagedDb = besides(dbPath, "restore");
  const stagedArtifacts = besides(artifactsDir, "restore");
  try {
    const meta = readMeta(backup, source);
    const peppers = readSecrets(config.dataDir, "key-pepper", config.keyPepper);
    const have = new Set(peppers.length === 0 ? [] : peppers.map((p) => keyRing("pepper", [p]).current.id));
    const missing = meta.pepper_ids.filter((id) => !have.has(id));
    if (missing.length > 0 && options.ignorePepper !== true) {
      throw new BackupError(
        `the backup's secret-key hashes were made with key pepper id(s) ${missing.join(", ")}, which ${config.dataDir}/key-pepper or PRICING_KEY_PEPPER does not hold: put the pepper that was kept beside the backup there (or pass --ignore-pepper and rotate every partner's keys after)`,
        "pepper_missing",
      );
    }
    const replacing = await holdsData(config);
    if (replacing && options.force !== true) {
      throw new BackupError(
        `${config.dataDir} already holds a database or artifacts; pass --force to replace them`,
        "target_not_empty",
      );
    }
    refuseInUse(config);

    makePrivateDirs(dirname(dbPath));
    makeSqliteFilePrivate(stagedDb);
    await backup.backup(stagedDb);
    const staged = openSqlite(stagedDb, false);
    const store = new FsObjectStore({ root: stagedArtifacts });
    let objects = 0;
    try {
      const rows = backup
        .prepare(`select key, body from ${OBJECTS_TABLE} order by key`)
        .iterate() as Iterable<{
        key: string;
        body: Buffer;
      }>;
      for (const row of rows) {
        await store.put(row.key, new Uint8Array(row.body));
        objects++;
      }
      staged.exec(`drop table ${OBJECTS_TABLE}; drop table ${META_TABLE};`);
      staged.exec("vacuum");
      const check = staged.pragma("integrity_check", { simple: true });
      if (check !== "ok")
        throw new Error(`the restored database fails its integrity check: ${String(check)}`);
    } finally {
      staged.close();
    }
    makePrivateDirs(stagedArtifacts);
    const restoredStore = createPolicyStore({ root: stagedArtifacts });
    const companies = await restoredStore.listCompanies();
    for (const companyId of companies) {
      const report = await restoredStore.checkConsistency(companyId);
      if (!report.ok) {
        throw new BackupError(
          `the backup's store of company ${companyId} is inconsistent: ${report.problems.join("; ")}`,
          "inconsistent_store",
        );
      }
    }

    // The swap: two renames, the artifacts folder first. The WAL of the old database (not in use, checked
    // above) belongs to the file being replaced.
    const old = besides(artifactsDir, "replaced");
    if (existsSync(artifactsDir)) await rename(artifactsDir, old);
    await rename(stagedArtifacts, artifactsDir);
    await rm(`${dbPath}-wal`, { force: true });
    await rm(`${dbPath}-shm`, { force: true });
    await rename(stagedDb, dbPath);
    await rm(old, { recursive: true, force: true });
    return {
      file: source,
      data_dir: config.dataDir,
      created_at: meta.created_at,
      store_objects: objects,
      companies: companies.length,
      replaced: replacing,
      missing_pepper_ids: missing,
    };
  } catch (error) {
    await rm(stagedDb, { force: true });
    await rm(`${stagedDb}-journal`, { force: true });
    await rm(stagedArtifacts, { recursive: true, force: true });
    throw error;
  } finally {
    backup.close();
  }
}
