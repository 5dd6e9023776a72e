import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServerContext, demoScenario, loadConfig, seedCompanyFromMarket } from "@pricing/server";
import SqliteDatabase from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource } from "./tsx-source.js";
import { waitFor } from "./wait-for.js";

const CLI = join(process.cwd(), "packages/server/src/cli.ts");
const COMPANIES = 40;
// The tick before the start is today's 00:00 UTC, so every start catches up the day's batch at once.
const CRON = "0 0 * * *";

let dataDir: string;
// One today for the file, read once: the server processes run on the wall clock (a process cannot be handed a
// clock), so the seed, the checks and the runs agree unless midnight UTC passes during the test itself.
const TODAY = new Date().toISOString().slice(0, 10);

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

/**
 * `pricing serve` in its own process, on a free port: node itself with tsx's loader (the `tsx` binary would run
 * the server in a grandchild that a kill -9 of its parent leaves running).
 */
function serve(): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", ...fromSource(CLI, "serve", "--port", "0")], {
    env: { ...cleanEnv(), PRICING_DATA_DIR: dataDir, PRICING_BATCH_CRON: CRON, PRICING_LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Read from the side, as an operator's SQLite shell would: nightly runs of today, outcomes by status. */
function observe<T>(query: (db: SqliteDatabase.Database) => T): T {
  const db = new SqliteDatabase(join(dataDir, "pricing.sqlite"), { readonly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}
const nightlyRuns = () =>
  observe(
    (db) =>
      db
        .prepare("select count(*) from runs where kind = 'nightly' and as_of = ?")
        .pluck()
        .get(TODAY) as number,
  );

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-batch-kill-"));
  const ctx = await createServerContext(loadConfig({}, { dataDir }));
  try {
    for (let i = 0; i < COMPANIES; i++) {
      const id = `co${String(i).padStart(2, "0")}`;
      await seedCompanyFromMarket(ctx, {
        companyId: id,
        name: id,
        timezone: "UTC",
        currency: "EUR",
        dir: join(dataDir, "csv"),
        scenario: demoScenario({
          name: id,
          today: TODAY,
          seed: 100 + i,
          products: 6,
          tightStock: i % 2 === 0,
          historyDays: 40,
        }),
      });
    }
  } finally {
    await ctx.close();
  }
}, 180_000);

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("a nightly batch across SIGTERM and kill -9 of the server process", () => {
  it("records the shutdown's leftovers, survives kill -9, and ends with exactly one nightly run per company", async () => {
    // 1. SIGTERM during the batch: the leftovers are recorded `interrupted`, with the reason.
    const first = serve();
    await waitFor(() => nightlyRuns() >= 3, {
      what: "the first runs of the caught-up batch",
      timeoutMs: 120_000,
    });
    first.kill("SIGTERM");
    const [code] = await once(first, "exit");
    expect(code).toBe(0);
    const afterTerm = nightlyRuns();
    const interrupted = observe(
      (db) =>
        db.prepare("select company_id, error from batch_outcomes where status = 'interrupted'").all() as {
          company_id: string;
          error: string;
        }[],
    );
    console.log(
      `SIGTERM after ${afterTerm} of ${COMPANIES} runs; ${interrupted.length} outcomes interrupted`,
    );
    expect(afterTerm).toBeLessThan(COMPANIES);
    expect(interrupted.length).toBe(COMPANIES - afterTerm);
    for (const row of interrupted) expect(row.error).toMatch(/^interrupted: the server is shutting down/);

    // 2. kill -9 during the next start's catch-up: nothing is recorded for the company in progress.
    const second = serve();
    await waitFor(() => nightlyRuns() >= afterTerm + 3, {
      what: "the catch-up to make progress",
      timeoutMs: 120_000,
    });
    second.kill("SIGKILL");
    await once(second, "exit");
    const afterKill = nightlyRuns();
    console.log(`SIGKILL after ${afterKill} of ${COMPANIES} runs`);
    expect(afterKill).toBeLessThan(COMPANIES);

    // 3. The next start finishes the day: every company, exactly once.
    const third = serve();
    try {
      await waitFor(() => nightlyRuns() === COMPANIES, {
        what: "every company's nightly run",
        timeoutMs: 120_000,
      });
      const perCompany = observe(
        (db) =>
          db
            .prepare(
              "select c.company_id, count(r.run_id) as runs from companies c left join runs r on r.company_id = c.company_id and r.kind = 'nightly' and r.as_of = ? group by c.company_id",
            )
            .all(TODAY) as { company_id: string; runs: number }[],
      );
      expect(perCompany).toHaveLength(COMPANIES);
      expect(perCompany.filter((c) => c.runs !== 1)).toEqual([]);
    } finally {
      third.kill("SIGTERM");
      await once(third, "exit");
    }
  }, 400_000);
});
