import { mkdirSync } from "node:fs";
import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  /** Data directory holding `pricing.sqlite` when no PostgreSQL URL is given. */
  dataDir: string;
  /** `postgres://...`; when set, PostgreSQL is used instead of the embedded SQLite file. */
  databaseUrl?: string | undefined;
  /** PostgreSQL schema to use (search_path); tests use one per run. */
  pgSchema?: string | undefined;
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
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = new SqliteDatabase(sqlitePath(options.dataDir));
  file.pragma("journal_mode = WAL");
  file.pragma("foreign_keys = ON");
  file.pragma("busy_timeout = 5000");
  file.pragma("synchronous = NORMAL");
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
}

/** Cheap round trip for /readyz. */
export async function pingDatabase(db: Db): Promise<boolean> {
  await sql`select 1`.execute(db);
  return true;
}
