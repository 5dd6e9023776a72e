import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { createDatabase, type Db } from "../db/database.js";
import { postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "../db/test-postgres.js";
import { demoScenario, seedCompanyFromMarket } from "../demo/market-seed.js";
import type { BatchSchedule } from "./batch-schedule.js";
import { startJobs } from "./start-jobs.js";

const enabled = await postgresTestsEnabled();
const POLL_SECONDS = 8;
const COMPANIES = 4;

/**
 * pg-boss 10 waits out the rest of its polling interval after every job, even with more jobs queued: a worker ran
 * at most one nightly company per `jobPollSeconds` (2 s by default), whatever the company's size. The queue asks
 * for the next job as soon as one ends, so small companies run back to back.
 */
describe.runIf(enabled)("the pg-boss nightly fan-out", () => {
  const schema = `pricing_boss_${process.pid}_${Date.now()}`;
  const jobSchema = `${schema}_jobs`;
  let dataDir: string;
  let admin: Db;
  let ctx: ServerContext;
  let schedule: BatchSchedule | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-boss-"));
    admin = createDatabase({ dataDir, databaseUrl: TEST_PG_URL });
    await sql`create schema ${sql.id(schema)}`.execute(admin);
    ctx = await createServerContext(
      loadConfig(
        {},
        {
          dataDir,
          databaseUrl: TEST_PG_URL,
          ...TEST_PG_SECRETS,
          pricing: { jobSchema, jobPollSeconds: POLL_SECONDS },
        },
      ),
      { pgSchema: schema },
    );
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
    for (let i = 0; i < COMPANIES; i++) {
      await seedCompanyFromMarket(ctx, {
        companyId: `boss-${i}`,
        name: `Boss ${i}`,
        timezone: "UTC",
        currency: "EUR",
        dir: join(dataDir, "csv"),
        scenario: demoScenario({ name: `boss-${i}`, today, seed: 70 + i, products: 2, tightStock: false }),
      });
    }
  }, 60_000);

  afterAll(async () => {
    await schedule?.stop();
    await ctx?.close();
    if (admin) {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
      await sql`drop schema if exists ${sql.id(jobSchema)} cascade`.execute(admin);
      await admin.destroy();
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it("runs the queued companies back to back, not one per polling interval", async () => {
    schedule = await startJobs(ctx, { concurrency: 1 });
    await ctx.jobs?.nightlyBatch();
    const deadline = performance.now() + 60_000;
    let outcomes = await ctx.db.selectFrom("batch_outcomes").selectAll().execute();
    while (outcomes.length < COMPANIES && performance.now() < deadline) {
      await delay(100);
      outcomes = await ctx.db.selectFrom("batch_outcomes").selectAll().execute();
    }
    expect(outcomes.map((o) => o.status)).toEqual(Array(COMPANIES).fill("created"));
    const finished = outcomes.map((o) => Date.parse(o.finished_at)).sort((a, b) => a - b);
    const spread = ((finished.at(-1) ?? 0) - (finished[0] ?? 0)) / 1000;
    // Waiting out the interval after each job put about one interval between companies: 19.7 s measured.
    expect(spread).toBeLessThan(((COMPANIES - 1) * POLL_SECONDS) / 2);
  }, 90_000);
});
