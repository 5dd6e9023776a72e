import { CompiledQuery, type Kysely, SqliteAdapter, sql } from "kysely";
import type { Database } from "../db/schema.js";
import type { ImportIssue } from "./import-issues.js";

/** A table keyed by company, product and date that a CSV file fills (`sales`, `promotions`). */
export interface StagedTarget<Row extends StagedKey> {
  table: "sales" | "promotions";
  /** The columns besides the key, each with its SQL type: compared to tell a change, then written. */
  values: readonly { name: Exclude<keyof Row, keyof StagedKey> & string; type: string }[];
}

export interface StagedKey {
  product_id: string;
  date: string;
}

export interface StagedCounts {
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

/** Rows sent in one INSERT (7 values each at most: far below either database's bound on parameters). */
const ROWS_PER_INSERT = 500;
/**
 * From this many changed rows per row already in the table, SQLite rebuilds its secondary indexes rather than keep
 * them row by row ({@link StagedRows.moveInto}): a rebuild sorts the whole table (~0.7 us a row here), keeping them
 * costs ~2.5 us per changed row.
 */
const REBUILD_INDEXES_SHARE = 0.5;
/** Rows staged per transaction: bounded work per commit whatever the file's size. */
export const STAGE_ROWS_PER_TRANSACTION = 5000;

type Connection = Kysely<Database>;

/**
 * A file's valid rows, staged in a temporary table on the import's one connection (SQLite keeps it in a file of its
 * own, outside the database and its lock, with a bounded page cache; PostgreSQL keeps it per session), so the
 * import holds none of them in memory. The database then does what needs every row at once: it finds duplicate
 * keys with a unique index (sorting on disk), tells changed rows from unchanged ones against the target table, and
 * moves the changed ones into it with one statement, the only one inside the import's write transaction.
 */
export class StagedRows<Row extends StagedKey> {
  readonly #stage: string;
  readonly #changed: string;
  readonly #columns: string[];
  #pending: Row[] = [];
  #lines: number[] = [];
  #staged = 0;
  #inTransaction = false;
  #insert: string | undefined;

  constructor(
    private readonly conn: Connection,
    private readonly target: StagedTarget<Row>,
  ) {
    this.#stage = `import_${target.table}_stage`;
    this.#changed = `import_${target.table}_changed`;
    this.#columns = ["product_id", "date", ...target.values.map((v) => v.name)];
  }

  get rows(): number {
    return this.#staged + this.#pending.length;
  }

  async create(): Promise<void> {
    await this.drop();
    const values = this.target.values.map((v) => sql.raw(`${v.name} ${v.type}`));
    for (const table of [this.#stage, this.#changed]) {
      const extra =
        table === this.#stage ? sql.raw("line integer not null") : sql.raw("is_new integer not null");
      await sql`create temporary table ${sql.table(table)} (
        ${extra}, product_id text not null, date text not null, ${sql.join(values)})`.execute(this.conn);
    }
  }

  /** Stages one valid row of line `line`; writes a batch when one is full. */
  async add(line: number, row: Row): Promise<void> {
    this.#pending.push(row);
    this.#lines.push(line);
    if (this.#pending.length >= ROWS_PER_INSERT) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    // Plain `begin`, not Kysely's transaction: on SQLite that is `begin immediate`, which would take the write lock
    // of the database file too, where this writes only the temporary table.
    if (!this.#inTransaction) {
      await sql`begin`.execute(this.conn);
      this.#inTransaction = true;
    }
    const parameters: unknown[] = [];
    this.#pending.forEach((row, i) => {
      parameters.push(this.#lines[i]);
      for (const column of this.#columns) parameters.push(row[column as keyof Row] ?? null);
    });
    const full = this.#pending.length === ROWS_PER_INSERT;
    // A full batch's SQL text is always the same: compiled once, prepared once.
    const text = full && this.#insert !== undefined ? this.#insert : this.#insertText(this.#pending.length);
    if (full) this.#insert = text;
    await this.conn.executeQuery(CompiledQuery.raw(text, parameters));
    const before = this.#staged;
    this.#staged += this.#pending.length;
    this.#pending = [];
    this.#lines = [];
    if (
      Math.floor(before / STAGE_ROWS_PER_TRANSACTION) !==
      Math.floor(this.#staged / STAGE_ROWS_PER_TRANSACTION)
    ) {
      await this.#commit();
    }
  }

  #insertText(rows: number): string {
    const placeholders = Array.from({ length: this.#columns.length + 1 }, () => sql`${null}`);
    const tuple = sql`(${sql.join(placeholders)})`;
    return sql`insert into ${sql.table(this.#stage)} (line, ${sql.join(this.#columns.map((c) => sql.ref(c)))})
      values ${sql.join(Array.from({ length: rows }, () => tuple))}`.compile(this.conn).sql;
  }

  async #commit(): Promise<void> {
    if (!this.#inTransaction) return;
    this.#inTransaction = false;
    await sql`commit`.execute(this.conn);
  }

  /** Writes what is left of the file's rows and commits them. */
  async finish(): Promise<void> {
    await this.#flush();
    await this.#commit();
  }

  /**
   * Rows whose product and date an earlier row already had, each named by its line, the first `limit` in line
   * order, and how many there are. A unique index finds whether there are any (the common case: none).
   */
  async duplicates(limit: number): Promise<{ issues: Omit<ImportIssue, "file">[]; count: number }> {
    try {
      await sql`create unique index ${sql.id(`${this.#stage}_key`)}
        on ${sql.table(this.#stage)} (product_id, date)`.execute(this.conn);
      return { issues: [], count: 0 };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const repeats = sql`select line, first_line from (
        select line, min(line) over (partition by product_id, date) as first_line from ${sql.table(this.#stage)}
      ) keyed where line <> first_line`;
    const rows = await sql<{
      line: number;
      first_line: number;
    }>`${repeats} order by line limit ${limit}`.execute(this.conn);
    const total = await sql<{ n: number }>`select count(*) as n from (${repeats}) d`.execute(this.conn);
    return {
      issues: rows.rows.map((r) => ({
        line: Number(r.line),
        column: "date",
        message: `duplicate of line ${Number(r.first_line)} (same product and date)`,
      })),
      count: Number(total.rows[0]?.n ?? 0),
    };
  }

  /**
   * Compares the staged rows with the company's rows in the target table (a read: no write lock) and keeps the
   * new and changed ones, in key order, for {@link moveInto}.
   */
  async compare(companyId: string): Promise<StagedCounts> {
    const t = (c: string) => sql.ref(`t.${c}`);
    const differs = this.target.values.map(
      (v) => sql`${t(v.name)} is distinct from ${sql.ref(`x.${v.name}`)}`,
    );
    await sql`insert into ${sql.table(this.#changed)} (is_new, ${sql.join(this.#columns.map((c) => sql.ref(c)))})
      select case when x.product_id is null then 1 else 0 end, ${sql.join(this.#columns.map(t))}
      from ${sql.table(this.#stage)} t
      left join ${sql.table(this.target.table)} x
        on x.company_id = ${companyId} and x.product_id = t.product_id and x.date = t.date
      where x.product_id is null or ${sql.join(differs, sql` or `)}
      order by t.product_id, t.date`.execute(this.conn);
    const counts = await sql<{ changed: number; inserted: number | null }>`
      select count(*) as changed, sum(is_new) as inserted from ${sql.table(this.#changed)}`.execute(
      this.conn,
    );
    const changed = Number(counts.rows[0]?.changed ?? 0);
    const inserted = Number(counts.rows[0]?.inserted ?? 0);
    return { rows: this.rows, inserted, updated: changed - inserted, unchanged: this.rows - changed };
  }

  /**
   * Inside the import's write transaction: the `changed` new and changed rows (from {@link compare}) into the
   * target table. The write lock is held for this statement, so on SQLite, when the rows are many against the
   * table's, its secondary indexes are dropped first and built again after (from their own SQL in sqlite_master):
   * keeping an index in another order than the rows arrive costs a random B-tree insert a row, sorting it afresh
   * far less (1.46 M new rows into an empty table: 5.0 s of CPU with the index kept, 2.1 s rebuilt). PostgreSQL
   * keeps them: dropping one would lock the table's readers out.
   */
  async moveInto(trx: Connection, companyId: string, changed: number): Promise<void> {
    const columns = sql.join(this.#columns.map((c) => sql.ref(c)));
    const updates = sql.join(
      this.target.values.map((v) => sql`${sql.ref(v.name)} = excluded.${sql.ref(v.name)}`),
    );
    const rebuilt = isSqlite(trx) ? await this.#dropIndexesForMany(trx, changed) : [];
    // `where true`: SQLite's parser needs it between a SELECT and ON CONFLICT; PostgreSQL accepts it. Without an
    // ORDER BY, SQLite reads the table in the order it was written, which is key order.
    await sql`insert into ${sql.table(this.target.table)} (company_id, ${columns})
      select ${companyId}, ${columns} from ${sql.table(this.#changed)} where true
      on conflict (company_id, product_id, date) do update set ${updates}`.execute(trx);
    for (const definition of rebuilt) await sql.raw(definition).execute(trx);
  }

  /** The SQL of the target's secondary indexes, dropped, when `changed` rows are many against the table's. */
  async #dropIndexesForMany(trx: Connection, changed: number): Promise<string[]> {
    const table = this.target.table;
    const existing = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(trx);
    if (changed < REBUILD_INDEXES_SHARE * Number(existing.rows[0]?.n ?? 0)) return [];
    // Indexes with SQL of their own: a primary key's or a unique constraint's (sql null) stay.
    const indexes = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
      where type = 'index' and tbl_name = ${table} and sql is not null`.execute(trx);
    for (const index of indexes.rows) await sql`drop index ${sql.id(index.name)}`.execute(trx);
    return indexes.rows.map((index) => index.sql);
  }

  async drop(): Promise<void> {
    if (this.#inTransaction) {
      this.#inTransaction = false;
      await sql`rollback`.execute(this.conn);
    }
    for (const table of [this.#stage, this.#changed]) {
      await sql`drop table if exists ${sql.table(table)}`.execute(this.conn);
    }
  }
}

/** SQLite's and PostgreSQL's unique violation. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
}

function isSqlite(conn: Connection): boolean {
  return conn.getExecutor().adapter instanceof SqliteAdapter;
}
