import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { runTrainOperation } from "./train-operation.js";

describe("a training operation's attempt", () => {
  let dataDir: string;
  let ctx: ServerContext;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-train-op-"));
    ctx = await createServerContext(loadConfig({}, { dataDir }));
    for (const id of ["co", "bare"]) {
      await ctx.repositories.companies.create({ company_id: id, name: id, timezone: "UTC", currency: "EUR" });
    }
  });

  afterAll(async () => {
    await ctx?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const create = async (id: string, company: string) => {
    const created = await ctx.repositories.operations.create({
      operation_id: id,
      kind: "train",
      company_id: company,
      input: { company_id: company, auto_approve: false },
    });
    if (!("created" in created)) throw new Error("the company already has an operation");
  };

  it("finishes, without training again, an operation whose earlier attempt died after committing", async () => {
    const store = ctx.policies.store;
    await create("op_crashed", "co");
    await ctx.repositories.operations.start("op_crashed", "test");
    // What the first attempt did before its worker died: saved, recorded the model it was committing, committed.
    const saved = await store.save({
      companyId: "co",
      manifest: { metrics: {} },
      weights: new Uint8Array([1, 2]),
    });
    const pending = {
      company_id: "co",
      model_id: saved.model_id,
      version: saved.version,
      trained_at: saved.trained_at,
      auto_approved: false,
      slots: { latest: saved.model_id, approved: null },
      metrics: {},
    };
    await ctx.repositories.operations.committing("op_crashed", saved.model_id, pending);
    await store.commitTraining({ companyId: "co", modelId: saved.model_id });

    // The company has no sales: a real training would fail with insufficient_history.
    await runTrainOperation(ctx, "op_crashed", { final: false });
    const op = await ctx.repositories.operations.get("op_crashed");
    expect(op).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(JSON.parse(op?.result ?? "null")).toEqual(pending);
    expect((await store.listVersions("co")).map((v) => v.model_id)).toEqual([saved.model_id]);

    // A finished operation is left alone by a late retry.
    await runTrainOperation(ctx, "op_crashed", { final: true });
    expect(await ctx.repositories.operations.get("op_crashed")).toMatchObject({
      status: "succeeded",
      attempts: 1,
    });
  });

  it("fails the operation at once on a failure no retry would change, with the API's code and message", async () => {
    await create("op_bare", "bare");
    await runTrainOperation(ctx, "op_bare", { final: false });
    const op = await ctx.repositories.operations.get("op_bare");
    expect(op).toMatchObject({ status: "failed", error_code: "insufficient_history", attempts: 1 });
    expect(op?.error_message).toBe("The company has no products to price.");
  });
});
