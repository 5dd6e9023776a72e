import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { translateError } from "../error-translator.js";
import { isDatabaseBusy } from "./database-busy.js";
import { postgresTestsEnabled, TEST_PG_URL } from "./test-postgres.js";

const postgres = await postgresTestsEnabled();

/** Runs `fn` and returns what it threw (the test fails when it does not throw). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("a busy database", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pricing-busy-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("SQLite: a write meeting another connection's write lock is busy, and answers 503 with Retry-After", () => {
    const file = join(dir, "busy.sqlite");
    const holder = new SqliteDatabase(file);
    const writer = new SqliteDatabase(file);
    try {
      holder.pragma("journal_mode = WAL");
      holder.exec("create table t (x integer)");
      writer.pragma("busy_timeout = 0");
      holder.exec("begin immediate");
      const error = thrown(() => writer.prepare("insert into t values (1)").run());
      expect(isDatabaseBusy(error)).toBe(true);
      const answer = translateError(new Error("wrapped", { cause: error }));
      expect(answer).toMatchObject({ code: "unavailable", statusCode: 503, headers: { "Retry-After": "1" } });
      // Other failures of the database are not "busy": they stay 500s.
      expect(isDatabaseBusy(thrown(() => writer.prepare("insert into nope values (1)").run()))).toBe(false);
      expect(translateError(new Error("anything"))).toBeUndefined();
    } finally {
      holder.exec("rollback");
      holder.close();
      writer.close();
    }
  });

  it.skipIf(!postgres)(
    "PostgreSQL: a lock_timeout waiting on another session's row lock is busy",
    async () => {
      const table = `busy_${process.pid}_${Date.now()}`;
      const holder = new pg.Client({ connectionString: TEST_PG_URL });
      const waiter = new pg.Client({ connectionString: TEST_PG_URL });
      await holder.connect();
      await waiter.connect();
      try {
        await holder.query(`create table ${table} (x integer primary key)`);
        await holder.query(`insert into ${table} values (1)`);
        await holder.query("begin");
        await holder.query(`update ${table} set x = 1 where x = 1`);
        await waiter.query("set lock_timeout = '100ms'");
        const error = await waiter.query(`update ${table} set x = 1 where x = 1`).catch((e: unknown) => e);
        expect((error as { code?: string }).code).toBe("55P03");
        expect(isDatabaseBusy(error)).toBe(true);
        expect(
          isDatabaseBusy(await waiter.query("select * from no_such_table").catch((e: unknown) => e)),
        ).toBe(false);
      } finally {
        await holder.query("rollback").catch(() => undefined);
        await holder.query(`drop table if exists ${table}`);
        await holder.end();
        await waiter.end();
      }
    },
  );
});
