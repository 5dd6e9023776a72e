import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import {
  Kysely,
  PostgresDialect,
  type SqliteDatabase as SqliteDialectDatabase,
  type SqliteStatement as SqliteDialectStatement,
  sql,
} from "kysely";
import pg from "pg";
import { makePrivateDirs, makeSqliteFilePrivate } from "./private-files.js";
import type { Database } from "./schema.js";
import { SqliteBusyWaitDialect } from "./sqlite-busy-wait.js";

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  /** Data directory holding `pricing.sqlite` when no PostgreSQL URL is given. */
  dataDir: string;
  /** `postgres://...`; when set, PostgreSQL is used instead of the embedded SQLite file. */
  databaseUrl?: string | undefined;
  /** PostgreSQL schema to use (search_path); tests use one per run. */
  pgSchema?: string | undefined;
  /**
   * SQLite: how long a write waits for another connection's write lock before SQLITE_BUSY, in asynchronous pauses
   * (`sqlite-busy-wait.ts`): the event loop never waits on it. Default 2000.
   */
  sqliteBusyTimeoutMs?: number | undefined;
}

export const SQLITE_FILE = "pricing.sqlite";

export function sqlitePath(dataDir: string): string {
  return join(dataDir, SQLITE_FILE);
}

// PostgreSQL returns bigint (count(*)) as text; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export function createDatabase(options: DatabaseOptions): Db {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    });
    // A connection lost (the database restarted, a backend terminated) fails the query running on it, which its
    // caller handles; pg also emits the error on the client, or on the pool when idle, and an unheard emit would end
    // the whole process.
    pool.on("error", () => undefined);
    pool.on("connect", (client) => client.on("error", () => undefined));
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  makePrivateDirs(options.dataDir);
  makeSqliteFilePrivate(sqlitePath(options.dataDir));
  const file = new SqliteDatabase(sqlitePath(options.dataDir));
  file.pragma("journal_mode = WAL");
  file.pragma("foreign_keys = ON");
  // The driver waits for a lock itself, asynchronously; past `sqliteBusyTimeoutMs`, SQLITE_BUSY: the API answers
  // 503 with Retry-After (`database-busy.ts`), the CLI names the error.
  file.pragma("busy_timeout = 0");
  file.pragma("synchronous = NORMAL");
  const db = new Kysely<Database>({
    dialect: new SqliteBusyWaitDialect({
      database: withStatementCache(file),
      file,
      busyWaitMs: Math.trunc(options.sqliteBusyTimeoutMs ?? 2000),
    }),
  });
  // data_version moves when another process (the CLI, a second server) commits; writes made in this process, on
  // any of its connections, are counted as they happen.
  const dataVersion = file.prepare("pragma data_version").pluck();
  let seen: number | undefined;
  changeVersions.set(db, () => {
    if (seen === undefined) {
      seen = dataVersion.get() as number;
      // The pragma costs a read transaction, so it is read once per turn of the event loop: a request sent after
      // another process committed is read from its socket in a later poll phase, after this value is dropped.
      setImmediate(() => {
        seen = undefined;
      }).unref();
    }
    return `${seen}:${processWrites}`;
  });
  return db;
}

const changeVersions = new WeakMap<Db, () => string>();

/** Statements that may have written, on every SQLite connection of this process. */
let processWrites = 0;

/**
 * For the embedded database: a function whose value changes whenever the data may have changed since it was last
 * read (a commit by this process or any other), so a cache keyed on it never serves a stale row. Undefined for
 * PostgreSQL (and for derived Kysely instances): callers then read the database every time.
 */
export function changeVersionOf(db: Db): (() => string) | undefined {
  return changeVersions.get(db);
}

/** Most distinct SQL texts kept prepared; chunked inserts and `in (...)` lists vary, the hot queries do not. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SQLite driver calls `prepare()` for every query, and better-sqlite3 compiles the SQL each time: on the
 * read path that compiling cost more than running the queries. Statements are reusable, so keep them per SQL
 * text (least recently used out first); a statement still iterating (a streamed query) is never handed out twice.
 * Every statement but a plain read is handed out counted, for `changeVersionOf`.
 */
function withStatementCache(file: SqliteDatabase.Database): SqliteDialectDatabase {
  const statements = new Map<string, { raw: SqliteDatabase.Statement; statement: SqliteDialectStatement }>();
  const counted = (statement: SqliteDatabase.Statement): SqliteDialectStatement => ({
    reader: statement.reader,
    all(parameters) {
      try {
        return statement.all(parameters);
      } finally {
        processWrites++;
      }
    },
    run(parameters) {
      try {
        return statement.run(parameters);
      } finally {
        processWrites++;
      }
    },
    iterate(parameters) {
      processWrites++;
      return statement.iterate(parameters);
    },
  });
  const database: SqliteDialectDatabase = {
    close: () => file.close(),
    prepare(text: string) {
      const hit = statements.get(text);
      if (hit !== undefined && !hit.raw.busy) {
        statements.delete(text);
        statements.set(text, hit);
        return hit.statement;
      }
      const raw = file.prepare(text);
      // Only plain reads go uncounted: a COMMIT writes nothing itself but makes a transaction's rows visible.
      const statement = raw.reader && raw.readonly ? raw : counted(raw);
      if (hit === undefined) {
        statements.set(text, { raw, statement });
        if (statements.size > STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next();
          if (!oldest.done) statements.delete(oldest.value);
        }
      }
      return statement;
    },
  };
  return database;
}

/** Cheap round trip for /readyz. */
export async function pingDatabase(db: Db): Promise<boolean> {
  await sql`select 1`.execute(db);
  return true;
}
