import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import type { BatchOutcomesTable } from "../db/schema.js";
import { createTestSchema, postgresTestsEnabled, TEST_PG_SECRETS, TEST_PG_URL } from "../db/test-postgres.js";

function outcome(batchId: string, companyId: string, startedAt: string): BatchOutcomesTable {
  return {
    batch_id: batchId,
    company_id: companyId,
    as_of: startedAt.slice(0, 10),
    trigger: "schedule",
    status: "created",
    run_id: `run_${batchId}_${companyId}`,
    error: null,
    started_at: startedAt,
    finished_at: startedAt.replace(":00Z", ":30Z"),
  };
}

describe("batch outcomes repository", () => {
  let dataDir: string;
  let ctx: ServerContext;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-batch-outcomes-"));
    ctx = await createServerContext(loadConfig({}, { dataDir }));
  });

  afterAll(async () => {
    await ctx?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("lists the newest batches first with their outcomes by company, and answers the catch-up check", async () => {
    const outcomes = ctx.repositories.batchOutcomes;
    expect(await outcomes.recent(5)).toEqual([]);
    await outcomes.record(outcome("bat_1", "b", "2026-03-09T02:00:00Z"));
    await outcomes.record(outcome("bat_1", "a", "2026-03-09T02:00:00Z"));
    await outcomes.record(outcome("bat_2", "a", "2026-03-10T02:00:00Z"));

    const [newest, older, ...rest] = await outcomes.recent(5);
    expect(rest).toEqual([]);
    expect(newest).toMatchObject({ batch_id: "bat_2", started_at: "2026-03-10T02:00:00Z" });
    expect(older?.outcomes.map((o) => o.company_id)).toEqual(["a", "b"]);
    expect((await outcomes.recent(1)).map((b) => b.batch_id)).toEqual(["bat_2"]);

    expect([...(await outcomes.companiesSince("2026-03-09T02:00:00Z"))].sort()).toEqual(["a", "b"]);
    expect([...(await outcomes.companiesSince("2026-03-10T02:00:00Z"))]).toEqual(["a"]);
    expect(await outcomes.companiesSince("2026-03-10T02:00:01Z")).toEqual(new Set());
  });
});

const postgres = await postgresTestsEnabled();

/** A queue's retried job records again under the same batch (issue 15 item 12, workers on PostgreSQL). */
describe.each([
  { backend: "sqlite", enabled: true },
  { backend: "postgres", enabled: postgres },
])("a retried company's outcome on $backend", ({ backend, enabled }) => {
  let dataDir: string;
  let ctx: ServerContext;
  let schema: { schema: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    if (!enabled) return;
    dataDir = await mkdtemp(join(tmpdir(), "pricing-batch-retry-"));
    if (backend === "postgres") {
      schema = await createTestSchema("pricing_outcome_retry");
      ctx = await createServerContext(
        loadConfig({}, { dataDir, databaseUrl: TEST_PG_URL, ...TEST_PG_SECRETS }),
        { pgSchema: schema.schema },
      );
    } else {
      ctx = await createServerContext(loadConfig({}, { dataDir }));
    }
  });

  afterAll(async () => {
    if (!enabled) return;
    await ctx?.close();
    await schema?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it.skipIf(!enabled)("replaces an interrupted or failed attempt, never a finished one", async () => {
    const outcomes = ctx.repositories.batchOutcomes;
    const at = "2026-03-10T02:00:00Z";
    const attempt = (status: BatchOutcomesTable["status"], error: string | null, runId: string | null) => ({
      ...outcome("bat_retry", "a", at),
      status,
      error,
      run_id: runId,
    });
    await outcomes.record(attempt("interrupted", "interrupted: the worker is shutting down", null));
    expect(await outcomes.companiesSince(at)).toEqual(new Set());
    await outcomes.record(attempt("failed", "disk full", null));
    await outcomes.record(attempt("created", null, "run_1"));
    // A retry of a job whose worker died after recording it finds the run there: the outcome stays `created`.
    await outcomes.record(attempt("exists", null, "run_1"));
    const [batch] = await outcomes.recent(1);
    expect(batch?.outcomes).toEqual([
      { company_id: "a", as_of: "2026-03-10", status: "created", run_id: "run_1", error: null },
    ]);
    expect(await outcomes.companiesSince(at)).toEqual(new Set(["a"]));
  });
});
