import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineError } from "@pricing/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { createServerContext, type ServerContext } from "../context.js";
import { translateError } from "../error-translator.js";
import { trainCompany } from "./train-company.js";

describe("train-company job", () => {
  let dataDir: string;
  let ctx: ServerContext;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-train-job-"));
    ctx = await createServerContext(loadConfig({}, { dataDir }));
    await ctx.repositories.companies.create({
      company_id: "bare",
      name: "Bare",
      timezone: "UTC",
      currency: "EUR",
    });
  });

  afterAll(async () => {
    await ctx?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("lets the engine's insufficient_history through (the translator's 422) and releases the slot", async () => {
    const error = await trainCompany(ctx, { companyId: "bare", autoApprove: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(translateError(error)).toMatchObject({ code: "insufficient_history", statusCode: 422 });
    expect(ctx.training.isTraining("bare")).toBe(false);
    expect((await ctx.policies.store.getSlots("bare")).latest).toBeNull();
  });

  it("refuses an unknown company with 404 company_not_found before claiming a slot", async () => {
    await expect(trainCompany(ctx, { companyId: "nobody", autoApprove: false })).rejects.toMatchObject({
      code: "company_not_found",
    });
  });
});
