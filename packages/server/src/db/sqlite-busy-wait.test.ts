import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Db, sqlitePath } from "./database.js";
import { isDatabaseBusy, retryWhileBusy } from "./database-busy.js";
import { migrateToLatest } from "./migrate.js";

/** Settles to "pending" while `promise` has not settled. */
async function state(promise: Promise<unknown>): Promise<"pending" | "settled"> {
  return Promise.race([promise.then(() => "settled" as const), Promise.resolve("pending" as const)]);
}

describe("SQLite writes meeting another process's write lock", () => {
  let dir: string;
  let db: Db;
  let holder: SqliteDatabase.Database;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pricing-busy-wait-"));
    db = createDatabase({ dataDir: dir, sqliteBusyTimeoutMs: 60_000 });
    await migrateToLatest(db);
    await db
      .insertInto("companies")
      .values({ company_id: "co", name: "Co", timezone: "UTC", currency: "EUR", created_at: "2026-01-01" })
      .execute();
    holder = new SqliteDatabase(sqlitePath(dir));
  });

  afterAll(async () => {
    if (holder.inTransaction) holder.exec("rollback");
    holder.close();
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it("wait off the event loop: reads go on, and the writes land once the lock is released", async () => {
    holder.exec("begin immediate");
    holder.exec("update companies set name = 'held' where company_id = 'co'");
    const statement = db
      .updateTable("companies")
      .set({ name: "statement" })
      .where("company_id", "=", "co")
      .execute();
    const transaction = db.transaction().execute(async (trx) => {
      await trx
        .updateTable("companies")
        .set({ timezone: "Europe/Paris" })
        .where("company_id", "=", "co")
        .execute();
    });
    // A read on the same connection answers while both writes wait: neither holds the connection nor the loop.
    for (let i = 0; i < 3; i++) {
      const read = await db
        .selectFrom("companies")
        .select("name")
        .where("company_id", "=", "co")
        .executeTakeFirst();
      expect(read?.name).toBe("Co");
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await state(statement)).toBe("pending");
    expect(await state(transaction)).toBe("pending");
    holder.exec("commit");
    await Promise.all([statement, transaction]);
    const row = await db
      .selectFrom("companies")
      .selectAll()
      .where("company_id", "=", "co")
      .executeTakeFirst();
    expect(row).toMatchObject({ name: "statement", timezone: "Europe/Paris" });
  });

  it("give up with SQLITE_BUSY once the busy timeout has passed", async () => {
    const impatient = createDatabase({ dataDir: dir, sqliteBusyTimeoutMs: 30 });
    holder.exec("begin immediate");
    try {
      const started = performance.now();
      const error = await impatient
        .updateTable("companies")
        .set({ name: "late" })
        .execute()
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isDatabaseBusy(error)).toBe(true);
      expect(performance.now() - started).toBeGreaterThanOrEqual(30);
      const trx = await impatient
        .transaction()
        .execute(async (t) => t.updateTable("companies").set({ name: "late" }).execute())
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isDatabaseBusy(trx)).toBe(true);
    } finally {
      holder.exec("rollback");
      await impatient.destroy();
    }
    expect((await db.selectFrom("companies").select("name").executeTakeFirst())?.name).toBe("statement");
  });

  it("outwait a longer lock with retryWhileBusy, for writers off the request path", async () => {
    const impatient = createDatabase({ dataDir: dir, sqliteBusyTimeoutMs: 10 });
    holder.exec("begin immediate");
    let tries = 0;
    try {
      await retryWhileBusy(async () => {
        tries++;
        // The second try finds the lock released: the first met it and gave up after its 10 ms.
        if (tries === 2) holder.exec("commit");
        await impatient.updateTable("companies").set({ name: "patient" }).execute();
      }, 60_000);
      expect(tries).toBe(2);
      expect((await db.selectFrom("companies").select("name").executeTakeFirst())?.name).toBe("patient");
      // Any other error stands at once.
      await expect(
        retryWhileBusy(async () => {
          tries++;
          throw new Error("not busy");
        }, 60_000),
      ).rejects.toThrow("not busy");
      expect(tries).toBe(3);
    } finally {
      if (holder.inTransaction) holder.exec("rollback");
      await impatient.destroy();
    }
  });
});
