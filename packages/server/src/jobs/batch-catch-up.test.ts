import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerContext } from "../context.js";
import { openTestContext, type TestContext } from "../db/test-context.js";
import { postgresTestsEnabled } from "../db/test-postgres.js";
import { demoScenario, seedCompanyFromMarket } from "../demo/market-seed.js";
import { startBatchSchedule } from "./batch-schedule.js";

const postgres = await postgresTestsEnabled();
const NOW = "2026-03-10T09:00:00Z";
const MISSED = "2026-03-10T02:00:00Z";

/**
 * The catch-up query (`batchOutcomes.companiesSince`, nightly runs of the day, the companies) on both stores: a
 * company finished or failed since the missed tick is left alone; one without an outcome, or interrupted by a
 * shutdown, runs now.
 */
describe.each([
  { backend: "sqlite", enabled: true },
  { backend: "postgres", enabled: postgres },
] as const)("catching up a missed or interrupted nightly batch on $backend", ({ backend, enabled }) => {
  let ctx: ServerContext;
  let opened: TestContext | undefined;

  beforeAll(async () => {
    if (!enabled) return;
    opened = await openTestContext(backend, "catch_up", () => new Date(NOW));
    ctx = opened.ctx;
    for (const [i, id] of ["done", "failed", "interrupted", "untouched"].entries()) {
      await seedCompanyFromMarket(ctx, {
        companyId: id,
        name: id,
        timezone: "UTC",
        currency: "EUR",
        dir: join(opened.dataDir, "csv"),
        scenario: demoScenario({
          name: id,
          today: "2026-03-10",
          seed: 60 + i,
          products: 2,
          tightStock: false,
          historyDays: 40,
        }),
      });
    }
  }, 60_000);

  afterAll(async () => {
    await opened?.close();
  });

  it.skipIf(!enabled)(
    "runs exactly the companies that lack today's run and no finished outcome",
    async () => {
      const record = (company: string, status: "created" | "failed" | "interrupted", startedAt: string) =>
        ctx.repositories.batchOutcomes.record({
          batch_id: `bat_${status}`,
          trigger: "schedule",
          company_id: company,
          as_of: "2026-03-10",
          status,
          run_id: null,
          error: status === "created" ? null : `${status}: test`,
          started_at: startedAt,
          finished_at: startedAt,
        });
      // Before the missed tick: does not count.
      await record("untouched", "failed", "2026-03-09T02:00:00Z");
      await record("failed", "failed", MISSED);
      await record("interrupted", "interrupted", MISSED);
      expect([...(await ctx.repositories.batchOutcomes.companiesSince(MISSED))].sort()).toEqual(["failed"]);
      // "done" has today's nightly run already, without an outcome (another process wrote it).
      const { runNightlyBatch } = await import("./nightly-batch.js");
      const first = await runNightlyBatch(ctx, { trigger: "cli", companyId: "done" });
      expect(first.companies[0]?.status).toBe("created");
      await sql`delete from batch_outcomes where batch_id = ${first.batch_id}`.execute(ctx.db);

      const schedule = startBatchSchedule(ctx);
      try {
        const report = await schedule.caughtUp;
        expect(report?.companies.map((c) => [c.company_id, c.status]).sort()).toEqual([
          ["interrupted", "created"],
          ["untouched", "created"],
        ]);
      } finally {
        await schedule.stop();
      }
      for (const company of ["done", "interrupted", "untouched"]) {
        expect(await ctx.repositories.runs.nightlyExists(company, "2026-03-10")).toBeTruthy();
      }
      expect(await ctx.repositories.runs.nightlyExists("failed", "2026-03-10")).toBeFalsy();
    },
    60_000,
  );

  it.skipIf(!enabled)("records a shutdown's leftovers as interrupted, with the reason", async () => {
    const { runNightlyBatch } = await import("./nightly-batch.js");
    const stopping = new AbortController();
    stopping.abort(new Error("the server is shutting down"));
    const report = await runNightlyBatch(ctx, {
      trigger: "schedule",
      companyId: "failed",
      signal: stopping.signal,
    });
    expect(report.companies).toMatchObject([
      { company_id: "failed", status: "interrupted", error: expect.stringContaining("shutting down") },
    ]);
    const [recorded] = await ctx.repositories.batchOutcomes.recent(1);
    expect(recorded?.outcomes).toMatchObject([{ company_id: "failed", status: "interrupted" }]);
  });
});
