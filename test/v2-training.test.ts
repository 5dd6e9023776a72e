import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";
import { waitFor } from "./wait-for.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely
type Json = any;

const V2 = "/public/v1/v2";
let h: V2Harness;
let token: string;

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z", {
    trainSeconds: 3,
    trainHorizonDays: 21,
    runDays: 14,
    minHistoryDays: 28,
  });
  await h.seedCompany("busy", { products: 3 });
  await h.seedCompany("gone", { products: 2 });
  token = await h.token(await h.partner(["busy", "gone"]));
});

afterAll(async () => {
  await h?.destroy();
});

async function healthzLatency(): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${h.url}/healthz`);
  await res.arrayBuffer();
  expect(res.status).toBe(200);
  return performance.now() - t0;
}

describe("training", () => {
  it("runs one training per company (the second gets 409 with Retry-After) while /healthz keeps answering", async () => {
    const first = h.post(`${V2}/model/train`, token, { company_id: "busy" });
    await waitFor(() => h.ctx.training.isTraining("busy"), {
      what: "the first training to hold the slot",
    });
    const second = await h.post(`${V2}/model/train`, token, { company_id: "busy" });
    expect(second.status).toBe(409);
    const error = (await second.json()) as Json;
    expect(error.error.code).toBe("training_in_progress");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    const latencies: number[] = [];
    let finished = false;
    void first.finally(() => {
      finished = true;
    });
    // Sample /healthz until the training answers.
    await waitFor(
      async () => {
        latencies.push(await healthzLatency());
        return finished;
      },
      { what: "the first training to answer", intervalMs: 50 },
    );
    const trained = await first;
    expect(trained.status).toBe(200);
    expect(latencies.length).toBeGreaterThan(5);
    // Generous bound for a shared 2-core CI machine running other suites in parallel (a training on the event
    // loop would block for seconds); the strict figure (100 ms) is measured by `pnpm bench:http`.
    expect(Math.max(...latencies)).toBeLessThan(1000);

    // The slot is free again.
    const again = await h.post(`${V2}/model/train`, token, { company_id: "busy", auto_approve: true });
    expect(again.status).toBe(200);
    expect(((await again.json()) as Json).version).toBe(2);
  }, 60_000);

  it("leaves no half state when the client disconnects mid-training", async () => {
    const controller = new AbortController();
    const aborted = fetch(`${h.url}${V2}/model/train`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ company_id: "gone", auto_approve: true }),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await waitFor(() => h.ctx.training.isTraining("gone"), { what: "the training to hold the slot" });
    controller.abort();
    expect(await aborted).toBeInstanceOf(Error);
    // The training finishes server-side and commits in one step, or not at all, then frees the slot.
    await waitFor(() => !h.ctx.training.isTraining("gone"), { what: "the disconnected training to end" });
    const next = await h.post(`${V2}/model/train`, token, { company_id: "gone" });
    expect(next.status).toBe(200);
    const second = (await next.json()) as Json;
    // Both trainings left whole artifacts: the disconnected one auto-approved (version 1), the next is latest.
    const report = (await (await h.get(`${V2}/model?company_id=gone`, token)).json()) as Json;
    expect(report).toMatchObject({ source: "approved", fallback_reason: null });
    expect(report.latest.model_id).toBe(second.model_id);
    expect(report.approved.version).toBe(1);
    expect(await h.ctx.policies.store.checkConsistency("gone")).toEqual({ ok: true, problems: [] });
    expect((await h.ctx.policies.store.listVersions("gone")).map((v) => v.version)).toEqual([1, 2]);
  }, 60_000);

  it("falls back from an unreadable approved artifact to latest, then to the rule, and says why", async () => {
    // After the previous test: approved is version 1, latest version 2.
    const before = (await (await h.get(`${V2}/model?company_id=gone`, token)).json()) as Json;
    expect(before.approved.model_id).not.toBe(before.latest.model_id);
    const weights = (modelId: string) =>
      join(h.dataDir, "artifacts", "companies", "gone", "artifacts", modelId, "weights.bin");
    const damage = async (modelId: string) => {
      const bytes = await readFile(weights(modelId));
      bytes[0] = (bytes[0] ?? 0) ^ 0xff;
      await writeFile(weights(modelId), bytes);
    };

    await damage(before.approved.model_id);
    const latest = (await (await h.get(`${V2}/model?company_id=gone`, token)).json()) as Json;
    expect(latest).toMatchObject({
      source: "latest",
      model_id: before.latest.model_id,
      fallback_reason: "artifact_unreadable",
    });
    const computed = (await (
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "gone", dry_run: true })
    ).json()) as Json;
    expect(computed).toMatchObject({ source: "latest", model_id: before.latest.model_id });

    await damage(before.latest.model_id);
    const rule = (await (await h.get(`${V2}/model?company_id=gone`, token)).json()) as Json;
    expect(rule).toMatchObject({ source: "rule", model_id: null, fallback_reason: "artifact_unreadable" });
    const ruled = (await (
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "gone", dry_run: true })
    ).json()) as Json;
    expect(ruled.source).toBe("rule");
    expect(ruled.recommendations.every((r: Json) => r.source === "rule" && r.model_id === null)).toBe(true);
  });

  it("serves the rule with slots_unreadable over a corrupt slot record, and refuses train and promote with 409", async () => {
    const slotsFile = join(h.dataDir, "artifacts", "companies", "gone", "slots.json");
    const before = (await (await h.get(`${V2}/model?company_id=gone`, token)).json()) as Json;
    await writeFile(slotsFile, '{"company_id":"gone","revision":');

    const report = await h.get(`${V2}/model?company_id=gone`, token);
    expect(report.status).toBe(200);
    expect(await report.json()).toMatchObject({
      source: "rule",
      model_id: null,
      latest: null,
      approved: null,
      fallback_reason: "slots_unreadable",
    });
    const computed = await h.post(`${V2}/recommendations/compute`, token, {
      company_id: "gone",
      dry_run: true,
    });
    expect(computed.status).toBe(200);
    expect(((await computed.json()) as Json).source).toBe("rule");

    for (const [path, body] of [
      ["model/promote", { company_id: "gone", model_id: before.latest.model_id }],
      ["model/train", { company_id: "gone" }],
    ] as const) {
      const res = await h.post(`${V2}/${path}`, token, body);
      expect(res.status, path).toBe(409);
      expect(((await res.json()) as Json).error.code, path).toBe("slots_unreadable");
    }
    expect(h.ctx.training.isTraining("gone")).toBe(false);
    expect(await readFile(slotsFile, "utf8")).toBe('{"company_id":"gone","revision":');
  });
});
