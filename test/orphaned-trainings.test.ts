import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource } from "./tsx-source.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";
import { waitFor } from "./wait-for.js";

// Issue 28 item 5: on SQLite, a training whose process died is settled by the next process to open the database:
// failed when its model was never committed, succeeded (with its model) when it was. Real CLI processes, kill -9.

const CLI = join(process.cwd(), "packages/server/src/cli.ts");
let h: V2Harness;

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("PRICING_") && !k.startsWith("PUBLIC_API_")),
  );
}

/** `pricing train --company C` in its own process on the harness's data dir. */
function trainInChild(company: string, seconds: number): ChildProcess {
  // Node itself with tsx's loader (not tsx's binary, which runs node as a child): the pid killed is the trainer's.
  return spawn(
    process.execPath,
    ["--import", "tsx", ...fromSource(CLI, "train", "--company", company, "--json", "--data-dir", h.dataDir)],
    {
      env: { ...cleanEnv(), PRICING_TRAIN_SECONDS: String(seconds), PRICING_MIN_HISTORY_DAYS: "28" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

const operationOf = async (company: string) =>
  (await h.ctx.repositories.operations.running()).find((op) => op.company_id === company);

/** A fresh process's view: a new context over the data dir settles what dead processes left. */
async function reopen() {
  const ctx = await h.newContext();
  await ctx.close();
}

beforeAll(async () => {
  h = await startV2Harness();
  await h.seedCompany("killed-training");
  await h.seedCompany("killed-after-commit");
}, 120_000);

afterAll(async () => {
  await h?.destroy();
});

describe("trainings left running by a dead process", () => {
  it("fail when the process died before its model was committed", async () => {
    const child = trainInChild("killed-training", 600);
    const exited = once(child, "exit");
    await waitFor(
      async () => (await operationOf("killed-training"))?.owner?.includes(`"pid":${child.pid}`) === true,
      {
        what: "the child's training to run",
        timeoutMs: 90_000,
      },
    );
    const op = await operationOf("killed-training");
    // A live owner is left alone: the server's own start-up saw nothing to settle, nor does another process.
    await reopen();
    expect((await h.ctx.repositories.operations.get(op?.operation_id ?? ""))?.status).toBe("running");
    child.kill("SIGKILL");
    await exited;
    await reopen();
    const settled = await h.ctx.repositories.operations.get(op?.operation_id ?? "");
    expect(settled).toMatchObject({ status: "failed", error_code: "internal_error" });
    expect(settled?.error_message).toMatch(/stopped with its process before its model was committed/);
    expect((await h.ctx.policies.store.getSlots("killed-training")).latest).toBeNull();
    // The company trains again at once: nothing holds it.
    const token = await h.token(await h.partner(["killed-training"]));
    const retrain = await h.post("/public/v1/v2/model/train", token, { company_id: "killed-training" });
    expect(retrain.status, await retrain.text()).toBe(200);
  }, 180_000);

  it("succeed with their model when it was committed before the process died", async () => {
    // A real process trains and commits; the window between its commit and its success row is milliseconds, so
    // the crash in it is made by putting the row back as a killed owner leaves it: running, owned by the process
    // (now gone) that recorded itself when it started the training.
    const child = trainInChild("killed-after-commit", 2);
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    const [done] = await h.ctx.db
      .selectFrom("operations")
      .selectAll()
      .where("company_id", "=", "killed-after-commit")
      .execute();
    await h.ctx.db
      .updateTable("operations")
      .set({ status: "running" })
      .where("operation_id", "=", done?.operation_id ?? "")
      .execute();
    await reopen();
    const settled = await h.ctx.repositories.operations.get(done?.operation_id ?? "");
    expect(done?.owner).toContain(`"pid":${child.pid}`);
    expect(settled).toMatchObject({ status: "succeeded", model_id: done?.model_id });
    expect(JSON.parse(settled?.result ?? "null")).toMatchObject({ model_id: done?.model_id, version: 1 });
    expect((await h.ctx.policies.store.getSlots("killed-after-commit")).latest?.model_id).toBe(
      done?.model_id,
    );
  }, 180_000);
});
