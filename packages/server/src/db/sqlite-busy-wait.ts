import { setTimeout as sleep } from "node:timers/promises";
import type SqliteDatabase from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
} from "kysely";
import { isDatabaseBusy } from "./database-busy.js";

/** Pauses between tries of a statement that met another process's write lock; the last repeats. */
const RETRY_PAUSES_MS = [2, 5, 10, 20, 50, 100];

/**
 * better-sqlite3 is synchronous: with a `busy_timeout` the whole event loop would wait out another process's write
 * lock (an import's last step holds it for seconds). So the file's own busy timeout is 0, and a statement that meets
 * the lock is tried again after an asynchronous pause, with the connection handed back in between (reads of this
 * process go on meanwhile), until `busyWaitMs` have passed; then its SQLITE_BUSY error stands (the API answers 503).
 * Only what can be repeated is: a statement outside a transaction, and a transaction's `begin`, which is
 * `begin immediate` so that it takes the write lock at once and no statement inside it can meet the lock later.
 */
export class SqliteBusyWaitDialect extends SqliteDialect {
  readonly #file: SqliteDatabase.Database;
  readonly #busyWaitMs: number;

  constructor(config: SqliteDialectConfig & { file: SqliteDatabase.Database; busyWaitMs: number }) {
    super(config);
    this.#file = config.file;
    this.#busyWaitMs = config.busyWaitMs;
  }

  override createDriver(): Driver {
    return new BusyWaitDriver(super.createDriver(), this.#file, this.#busyWaitMs);
  }
}

class BusyWaitDriver implements Driver {
  /** The wrapper handed out for each of the inner driver's connections (SQLite has one), and back. */
  readonly #wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly file: SqliteDatabase.Database,
    private readonly busyWaitMs: number,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.#wrapped.get(connection);
    if (wrapper === undefined) {
      wrapper = {
        executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
          this.file.inTransaction
            ? connection.executeQuery<R>(query)
            : this.#retrying(connection, () => connection.executeQuery<R>(query)),
        streamQuery: <R>(query: CompiledQuery, chunkSize?: number) =>
          connection.streamQuery<R>(query, chunkSize),
      };
      this.#wrapped.set(connection, wrapper);
      this.#inner.set(wrapper, connection);
    }
    return wrapper;
  }

  #unwrap(connection: DatabaseConnection): DatabaseConnection {
    return this.#inner.get(connection) ?? connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const inner = this.#unwrap(connection);
    await this.#retrying(inner, () => inner.executeQuery(CompiledQuery.raw("begin immediate")));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(this.#unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(this.#unwrap(connection));
  }

  savepoint: Driver["savepoint"] = (connection, name, compile) =>
    this.inner.savepoint?.(this.#unwrap(connection), name, compile) ?? Promise.resolve();

  rollbackToSavepoint: Driver["rollbackToSavepoint"] = (connection, name, compile) =>
    this.inner.rollbackToSavepoint?.(this.#unwrap(connection), name, compile) ?? Promise.resolve();

  releaseSavepoint: Driver["releaseSavepoint"] = (connection, name, compile) =>
    this.inner.releaseSavepoint?.(this.#unwrap(connection), name, compile) ?? Promise.resolve();

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.#unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }

  /**
   * Runs `attempt` (outside any transaction) until it does not meet the write lock, pausing between tries with the
   * connection released: the one connection's other users run meanwhile, and nothing of this attempt is open.
   */
  async #retrying<T>(connection: DatabaseConnection, attempt: () => Promise<T>): Promise<T> {
    const started = performance.now();
    for (let tries = 0; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        const waited = performance.now() - started;
        if (!isDatabaseBusy(error) || this.file.inTransaction || waited >= this.busyWaitMs) throw error;
        const pause = Math.min(
          RETRY_PAUSES_MS[Math.min(tries, RETRY_PAUSES_MS.length - 1)] ?? 100,
          this.busyWaitMs - waited,
        );
        await this.inner.releaseConnection(connection);
        await sleep(pause);
        await this.inner.acquireConnection();
      }
    }
  }
}
