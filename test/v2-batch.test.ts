import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  batchStatus,
  createServerContext,
  demoScenario,
  loadConfig,
  runNightlyBatch,
  seedCompanyFromMarket,
  startBatchSchedule,
} from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource, TSX } from "./tsx-source.js";
import { startV2Harness, TEST_SETTINGS, type V2Harness } from "./v2-harness.js";

const exec = promisify(execFile);
const CLI = join(process.cwd(), "packages/server/src/cli.ts");

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

describe("nightly batch across two processes", () => {
  let dataDir: string;
  const companies = ["north", "south", "east", "west"];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-batch-"));
    const ctx = await createServerContext(loadConfig({}, { dataDir }));
    try {
      for (const [i, id] of companies.entries()) {
        const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
        await seedCompanyFromMarket(ctx, {
          companyId: id,
          name: id,
          timezone: "UTC",
          currency: "EUR",
          dir: join(dataDir, "csv"),
          scenario: demoScenario({
            name: id,
            today,
            seed: 40 + i,
            products: 20,
            tightStock: i % 2 === 0,
            historyDays: 60,
          }),
        });
      }
    } finally {
      await ctx.close();
    }
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("writes exactly one nightly run per company when two `pricing batch run` start at once", async () => {
    const run = () =>
      exec(TSX, fromSource(CLI, "batch", "run", "--json"), {
        env: {
          ...cleanEnv(),
          PRICING_DATA_DIR: dataDir,
          PRICING_LOG_LEVEL: "silent",
          PRICING_RUN_DAYS: "60",
        },
      });
    const [a, b] = await Promise.all([run(), run()]);
    const reports = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    for (const id of companies) {
      const outcomes = reports.map((r) =>
        r.companies.find((c: { company_id: string }) => c.company_id === id),
      );
      expect(outcomes.map((o) => o.status).sort(), id).toEqual(expect.arrayContaining(["created"]));
      expect(
        outcomes.filter((o) => o.status === "created"),
        id,
      ).toHaveLength(1);
      expect(
        outcomes.every((o) => o.status === "created" || o.status === "exists"),
        id,
      ).toBe(true);
      // Both processes name the same run: the one the database kept.
      expect(new Set(outcomes.map((o) => o.run_id)).size, id).toBe(1);
    }
    const ctx = await createServerContext(loadConfig({}, { dataDir }));
    try {
      const rows = await ctx.db
        .selectFrom("runs")
        .select(["company_id", "kind", "as_of", "recommendation_count"])
        .execute();
      expect(rows).toHaveLength(companies.length);
      expect(new Set(rows.map((r) => r.company_id))).toEqual(new Set(companies));
      for (const r of rows) expect(r.kind).toBe("nightly");
      for (const r of rows) {
        const run = await ctx.repositories.runs.atOffset(r.company_id, 0);
        const items = await ctx.repositories.runs.recommendations(run?.run_id ?? "", {});
        expect(items).toHaveLength(Number(r.recommendation_count));
      }
      // Both batches are on record.
      expect((await batchStatus(ctx, 10)).batches).toHaveLength(2);
    } finally {
      await ctx.close();
    }
  }, 90_000);
});

describe("nightly batch in-process", () => {
  let h: V2Harness;

  beforeAll(async () => {
    h = await startV2Harness("2026-03-09T02:00:00Z", { ...TEST_SETTINGS, runsKeep: 3 });
    await h.seedCompany("auckland", { products: 2, timezone: "Pacific/Auckland" });
    await h.seedCompany("la", { products: 2, timezone: "America/Los_Angeles" });
    await h.seedCompany("broken", { products: 2 });
    // A product the import would refuse (min above max), written behind its back: its company's run must fail.
    await h.ctx.db
      .updateTable("products")
      .set({ min_price: 50, max_price: 10 })
      .where("company_id", "=", "broken")
      .execute();
  });

  afterAll(async () => {
    await h?.destroy();
  });

  it("lets each company's time zone decide its today, records a failure and goes on", async () => {
    const report = await runNightlyBatch(h.ctx, { trigger: "schedule" });
    const byId = Object.fromEntries(report.companies.map((c) => [c.company_id, c]));
    // 02:00 UTC is 15:00 on the 9th in Auckland and 18:00 on the 8th in Los Angeles.
    expect(byId.auckland).toMatchObject({ as_of: "2026-03-09", status: "created" });
    expect(byId.la).toMatchObject({ as_of: "2026-03-08", status: "created" });
    expect(byId.broken).toMatchObject({ status: "failed", run_id: null });
    expect(byId.broken?.error).toMatch(/min above max/);
    const status = await batchStatus(h.ctx, 1);
    expect(status.batches[0]?.outcomes.find((o) => o.company_id === "broken")?.status).toBe("failed");
    // Nothing half-written for the failed company.
    expect((await h.ctx.repositories.runs.list("broken", 10, 0)).total).toBe(0);
  });

  it("keeps one nightly run per company and day across restarts, and only the newest PRICING_RUNS_KEEP runs", async () => {
    // A restarted server (a fresh context over the same database) finds the day's run and adds none.
    const restarted = await h.newContext({ runsKeep: 3 });
    const again = await runNightlyBatch(restarted, { trigger: "schedule", companyId: "auckland" });
    expect(again.companies[0]).toMatchObject({ status: "exists" });
    await restarted.close();

    for (let day = 10; day <= 13; day++) {
      h.setNow(`2026-03-${day}T02:00:00Z`);
      await runNightlyBatch(h.ctx, { trigger: "schedule", companyId: "auckland" });
    }
    const listed = await h.ctx.repositories.runs.list("auckland", 100, 0);
    expect(listed.total).toBe(3);
    expect(listed.runs.map((r) => r.as_of)).toEqual(["2026-03-13", "2026-03-12", "2026-03-11"]);
    const orphans = await h.ctx.db
      .selectFrom("recommendation_days")
      .leftJoin("runs", "runs.run_id", "recommendation_days.run_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("runs.run_id", "is", null)
      .executeTakeFirstOrThrow();
    expect(Number(orphans.n)).toBe(0);
  });

  it("catches up a missed batch once when the server starts after the scheduled time", async () => {
    h.setNow("2026-03-14T05:00:00Z");
    const restarted = await h.newContext();
    const schedule = startBatchSchedule(restarted);
    const caught = await schedule.caughtUp;
    schedule.stop();
    expect(caught?.trigger).toBe("catch_up");
    const latest = (await batchStatus(h.ctx, 1)).batches[0];
    expect(latest?.outcomes.find((o) => o.company_id === "auckland")).toMatchObject({
      as_of: "2026-03-14",
      status: "created",
    });
    // A second start finds the batch done since 02:00 and does not run it again.
    const again = startBatchSchedule(restarted);
    expect(await again.caughtUp).toBeNull();
    again.stop();
    expect((await batchStatus(h.ctx, 1)).batches[0]?.batch_id).toBe(latest?.batch_id);
    await restarted.close();
  });

  it("finishes at start a batch that stopped part-way, only for the companies it did not reach", async () => {
    // The 02:00 batch reached auckland only, then the process died.
    h.setNow("2026-03-15T02:00:00Z");
    await runNightlyBatch(h.ctx, { trigger: "schedule", companyId: "auckland" });
    h.setNow("2026-03-15T02:30:00Z");
    const restarted = await h.newContext();
    const schedule = startBatchSchedule(restarted);
    const caught = await schedule.caughtUp;
    schedule.stop();
    expect(caught?.trigger).toBe("catch_up");
    expect(caught?.companies.map((c) => [c.company_id, c.status]).sort()).toEqual([
      ["broken", "failed"],
      ["la", "created"],
    ]);
    const auckland = await h.ctx.repositories.runs.list("auckland", 100, 0);
    expect(auckland.runs.filter((r) => r.as_of === "2026-03-15")).toHaveLength(1);
    // Every company now has an outcome since 02:00: a further start runs nothing (the failure is not retried).
    const again = startBatchSchedule(restarted);
    expect(await again.caughtUp).toBeNull();
    again.stop();
    await restarted.close();
  });

  it("runs on its cron schedule in-process", async () => {
    const everySecond = await h.newContext({ batchCron: "* * * * * *" });
    const done = new Promise<string>((resolve) => {
      const schedule = startBatchSchedule(everySecond, (report) => {
        schedule.stop();
        resolve(report.batch_id);
      });
    });
    const batchId = await done;
    await everySecond.close();
    const status = await batchStatus(h.ctx, 1);
    expect(status.batches[0]?.batch_id).toBe(batchId);
    expect(status.batches[0]?.trigger).toBe("schedule");
  }, 10_000);
});
