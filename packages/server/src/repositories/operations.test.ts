import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerContext } from "../context.js";
import { openTestContext, type TestContext } from "../db/test-context.js";
import { postgresTestsEnabled } from "../db/test-postgres.js";

const pgEnabled = await postgresTestsEnabled();

for (const dialect of ["sqlite", "postgres"] as const) {
  describe.skipIf(dialect === "postgres" && !pgEnabled)(`operations repository on ${dialect}`, () => {
    let ctx: ServerContext;
    let opened: TestContext | undefined;
    let now = new Date("2026-11-21T12:00:00.000Z");
    const train = (id: string, company = "co") => ({
      operation_id: id,
      kind: "train" as const,
      company_id: company,
      input: { company_id: company, auto_approve: false },
    });

    beforeAll(async () => {
      opened = await openTestContext(dialect, "ops", () => now);
      ctx = opened.ctx;
    });

    afterAll(async () => {
      await opened?.close();
    });

    it("keeps one queued or running training per company, however many race for it", async () => {
      const ops = ctx.repositories.operations;
      const raced = await Promise.all(["op_1", "op_2", "op_3", "op_4"].map((id) => ops.create(train(id))));
      const created = raced.filter((r) => "created" in r);
      expect(created).toHaveLength(1);
      const winner = "created" in created[0]! ? created[0].created.operation_id : "";
      for (const r of raced) if ("active" in r) expect(r.active.operation_id).toBe(winner);
      // Another company is not blocked.
      expect("created" in (await ops.create(train("op_other", "co-2")))).toBe(true);

      expect(await ops.start(winner, "test")).toBe(true);
      await ops.progress(winner, 0.5);
      expect(await ops.get(winner)).toMatchObject({ status: "running", attempts: 1, progress: 0.5 });
      // A retried job starts it again: one more attempt.
      expect(await ops.start(winner, "test")).toBe(true);
      await ops.committing(winner, "mdl_x", { model_id: "mdl_x" });
      expect(await ops.succeed(winner, { model_id: "mdl_x" })).toBe(true);
      expect(await ops.get(winner)).toMatchObject({
        status: "succeeded",
        attempts: 2,
        progress: 1,
        model_id: "mdl_x",
      });
      // Finished: no update moves it again, and the company may train again.
      expect(await ops.fail(winner, { code: "internal_error", message: "late" })).toBe(false);
      expect(await ops.start(winner, "test")).toBe(false);
      expect("created" in (await ops.create(train("op_5")))).toBe(true);
    });

    it("fails a running training nothing has touched since a time, and only that one", async () => {
      const ops = ctx.repositories.operations;
      await ops.create(train("op_stale", "co-3"));
      await ops.start("op_stale", "test");
      const touched = now.toISOString();
      now = new Date(now.getTime() + 60_000);
      const error = { code: "internal_error", message: "stopped with its process" };
      expect(await ops.failAbandoned("co-3", "train", touched, error)).toBe(false);
      expect(await ops.failAbandoned("co-3", "train", now.toISOString(), error)).toBe(true);
      expect(await ops.get("op_stale")).toMatchObject({ status: "failed", error_code: "internal_error" });
      expect("created" in (await ops.create(train("op_after", "co-3")))).toBe(true);
    });
  });
}
