import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServerContext, demoScenario, loadConfig, seedCompanyFromMarket } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, cliWithEnv } from "./http-harness.js";

let dataDir: string;

const TRAIN_ENV = { PRICING_TRAIN_SECONDS: "1", PRICING_TRAIN_HORIZON_DAYS: "21", PRICING_RUN_DAYS: "7" };

function pricing(...args: string[]): Promise<CliResult> {
  return cliWithEnv(TRAIN_ENV, dataDir, ...args);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pricing-v2-cli-"));
  const ctx = await createServerContext(loadConfig({}, { dataDir }));
  try {
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
    await seedCompanyFromMarket(ctx, {
      companyId: "cli-co",
      name: "CLI Co",
      timezone: "UTC",
      currency: "EUR",
      dir: join(dataDir, "csv"),
      scenario: demoScenario({
        name: "cli-co",
        today,
        seed: 9,
        products: 2,
        tightStock: true,
        horizon: 21,
        historyDays: 60,
      }),
    });
  } finally {
    await ctx.close();
  }
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("pricing train / promote / model / batch", () => {
  it("runs the operations the API offers, with the same codes on failure", async () => {
    const before = await pricing("model", "--company", "cli-co");
    expect(before.code).toBe(0);
    expect(before.json).toMatchObject({ source: "rule", fallback_reason: "no_artifact" });

    const trained = await pricing("train", "--company", "cli-co");
    expect(trained.code).toBe(0);
    expect(trained.json).toMatchObject({ company_id: "cli-co", version: 1, auto_approved: false });

    const stale = await pricing("promote", "--company", "cli-co", "--model", "mdl_not_current");
    expect(stale.code).toBe(1);
    expect(stale.json.error.code).toBe("model_id_stale");

    const promoted = await pricing("promote", "--company", "cli-co", "--model", trained.json.model_id);
    expect(promoted.code).toBe(0);
    expect(promoted.json).toMatchObject({ source: "approved", model_id: trained.json.model_id });

    const unknown = await pricing("model", "--company", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.code).toBe("company_not_found");

    const batch = await pricing("batch", "run");
    expect(batch.code).toBe(0);
    expect(batch.json.companies).toMatchObject([{ company_id: "cli-co", status: "created" }]);
    const status = await pricing("batch", "status");
    expect(status.json.batches[0].outcomes[0]).toMatchObject({ company_id: "cli-co", status: "created" });
    expect(status.json).toMatchObject({ schedule: "0 2 * * *", runs_keep: 60 });
  }, 60_000);
});
