import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { createServerContext, type ServerContext } from "./context.js";

describe("the context's policy resolver", () => {
  let dataDir: string;
  let ctx: ServerContext;
  const warnings: Record<string, unknown>[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "pricing-context-"));
    const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    ctx = await createServerContext(loadConfig({}, { dataDir }), { logger });
  });

  afterAll(async () => {
    await ctx?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("writes one warning per fallback with company, model id and reason, none for no_artifact", async () => {
    const store = ctx.policies.store;
    expect((await ctx.policies.resolver.resolve("fresh")).report.fallback_reason).toBe("no_artifact");
    expect(warnings).toEqual([]);

    // Verifies, but is no engine manifest: the engine refuses it.
    const saved = await store.save({
      companyId: "acme",
      manifest: { note: "not a policy" },
      weights: new Uint8Array(8),
    });
    await store.commitTraining({ companyId: "acme", modelId: saved.model_id, autoApprove: true });
    for (let i = 0; i < 2; i += 1) {
      expect((await ctx.policies.resolver.resolve("acme")).report).toMatchObject({
        source: "rule",
        fallback_reason: "artifact_unreadable",
      });
    }
    expect(warnings).toMatchObject([
      { level: 40, company_id: "acme", model_id: saved.model_id, fallback_reason: "artifact_unreadable" },
    ]);

    await writeFile(join(ctx.config.pricing.artifactsDir, "companies", "acme", "slots.json"), "{not json");
    const { report } = await ctx.policies.resolver.resolve("acme");
    expect(report).toMatchObject({ source: "rule", fallback_reason: "slots_unreadable", latest: null });
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatchObject({
      company_id: "acme",
      model_id: null,
      fallback_reason: "slots_unreadable",
    });
  }, 30_000);
});
