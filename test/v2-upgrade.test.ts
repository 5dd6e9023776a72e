import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runNightlyBatch } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely
type Json = any;

const V2 = "/public/v1/v2";
/** Artifacts written by earlier engines (packages/engine/src/artifact/fixtures/README.md). */
const FIXTURES = join(process.cwd(), "packages/engine/src/artifact/fixtures");
let h: V2Harness;
let token: string;

/** Stores a fixture's bytes as the company's latest and approved model, as an upgraded data dir holds it. */
async function install(companyId: string, manifestPath: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(FIXTURES, manifestPath), "utf8")) as Record<
    string,
    unknown
  >;
  const weights = new Uint8Array(await readFile(join(FIXTURES, "engine-0.1.0/weights.bin")));
  const store = h.ctx.policies.store;
  const saved = await store.save({ companyId, manifest, weights });
  await store.commitTraining({ companyId, modelId: saved.model_id, autoApprove: true });
  return saved.model_id;
}

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z");
  await h.seedCompany("old", { products: 2 });
  await h.seedCompany("future", { products: 2 });
  token = await h.token(await h.partner(["old", "future"]));
});

afterAll(async () => {
  await h?.destroy();
});

describe("artifacts across an engine upgrade", () => {
  it("serves an artifact written by the previous engine version", async () => {
    const modelId = await install("old", "engine-0.1.0/manifest.json");
    const report = (await (await h.get(`${V2}/model?company_id=old`, token)).json()) as Json;
    expect(report).toMatchObject({ source: "approved", model_id: modelId, fallback_reason: null });
  });

  it("reports an unsupported format as artifact_incompatible, serves the rule, and the nightly retrains it", async () => {
    const modelId = await install("future", "format-3/manifest.json");
    const report = (await (await h.get(`${V2}/model?company_id=future`, token)).json()) as Json;
    expect(report).toMatchObject({
      source: "rule",
      model_id: null,
      fallback_reason: "artifact_incompatible",
    });
    expect(report.approved.model_id).toBe(modelId);
    const computed = (await (
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "future", dry_run: true })
    ).json()) as Json;
    expect(computed).toMatchObject({ source: "rule", model_id: null });

    const batch = await runNightlyBatch(h.ctx, { trigger: "cli", companyId: "future" });
    expect(batch.companies).toMatchObject([{ company_id: "future", status: "created" }]);
    const after = (await (await h.get(`${V2}/model?company_id=future`, token)).json()) as Json;
    // The approved slot was the one passed over, so the retrained model replaces it.
    expect(after).toMatchObject({ source: "approved", fallback_reason: null });
    expect(after.approved.model_id).not.toBe(modelId);
    expect(after.latest.model_id).toBe(after.approved.model_id);
    const run = (await (await h.get(`${V2}/runs?company_id=future&limit=1`, token)).json()) as Json;
    expect(run.runs[0]).toMatchObject({ kind: "nightly", source: "approved", model_id: after.model_id });

    // Once retrained, a second batch the same day neither trains nor writes again.
    const versions = (await h.ctx.policies.store.listVersions("future")).length;
    await runNightlyBatch(h.ctx, { trigger: "cli", companyId: "future" });
    expect((await h.ctx.policies.store.listVersions("future")).length).toBe(versions);
  }, 120_000);
});
