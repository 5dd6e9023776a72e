import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { loadPricingSettings } from "./pricing-settings.js";

describe("loadPricingSettings", () => {
  const config = loadConfig({}, { dataDir: "/tmp/pricing-settings" });

  it("defaults to a 02:00 UTC batch, 60 runs kept and artifacts under the data dir", () => {
    const s = loadPricingSettings(config, {});
    expect(s).toMatchObject({
      batchCron: "0 2 * * *",
      runsKeep: 60,
      artifactsDir: "/tmp/pricing-settings/artifacts",
    });
  });

  it("reads PRICING_BATCH_CRON and PRICING_RUNS_KEEP, and names a bad setting", () => {
    const s = loadPricingSettings(config, { PRICING_BATCH_CRON: "30 1 * * *", PRICING_RUNS_KEEP: "7" });
    expect(s).toMatchObject({ batchCron: "30 1 * * *", runsKeep: 7 });
    expect(() => loadPricingSettings(config, { PRICING_RUNS_KEEP: "many" })).toThrow(/PRICING_RUNS_KEEP/);
    expect(() => loadPricingSettings(config, { PRICING_RUNS_KEEP: "0" })).toThrow(/runsKeep/);
  });
});
