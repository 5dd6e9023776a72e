import { threadId } from "node:worker_threads";
import { policyActivity } from "@pricing/engine";
import { companyToday, runNightlyBatch } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

const V2 = "/public/v1/v2";
const COMPANY = "offloop";
let h: V2Harness;
let token: string;

beforeAll(async () => {
  h = await startV2Harness("2026-03-10T03:00:00Z");
  await h.seedCompany(COMPANY, { products: 3, tightStock: true });
  token = await h.token(await h.partner([COMPANY]));
});

afterAll(async () => {
  await h?.destroy();
});

describe("planning runs off the API's event loop", () => {
  it("compute, the nightly batch and the model report run no policy in the server's thread", async () => {
    const trained = await h.post(`${V2}/model/train`, token, { company_id: COMPANY, auto_approve: true });
    expect(trained.status).toBe(200);
    const { model_id: modelId } = (await trained.json()) as { model_id: string };
    // The server runs in this thread: whatever it builds or runs of a policy here shows in this thread's counts.
    const before = policyActivity();

    for (const dryRun of [true, false]) {
      const res = await h.post(`${V2}/recommendations/compute`, token, {
        company_id: COMPANY,
        dry_run: dryRun,
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { recommendations: { source: string; model_id: string | null }[] };
      expect(body.recommendations.some((r) => r.source === "approved" && r.model_id === modelId)).toBe(true);
    }
    h.setNow("2026-03-11T02:00:00Z");
    const report = await runNightlyBatch(h.ctx, { trigger: "schedule", companyId: COMPANY });
    expect(report.companies.map((c) => [c.company_id, c.status, c.as_of])).toEqual([
      [COMPANY, "created", companyToday(h.now(), "UTC")],
    ]);
    token = await h.token(await h.partner([COMPANY]));
    const model = await h.get(`${V2}/model?company_id=${COMPANY}`, token);
    expect(model.status).toBe(200);
    expect(((await model.json()) as { source: string }).source).toBe("approved");

    expect(policyActivity()).toEqual(before);
    const threads = h.ctx.planning.stats();
    expect(threads.length).toBeGreaterThan(0);
    expect(threads.every((t) => t.threadId !== threadId)).toBe(true);
    // Two computes, the nightly run, and the model report's exploration (today's prices against the history).
    expect(threads.reduce((n, t) => n + t.planned, 0)).toBe(4);
    // The planning thread deserialized the artifact once for all four plans. The policy's forward pass runs only for
    // the lanes the online learner leaves: it prices every product of this history, so no pass ran, in any thread.
    expect(threads.reduce((n, t) => n + t.activity.built, 0)).toBe(1);
    expect(threads.reduce((n, t) => n + t.activity.forwardPasses, 0)).toBe(0);
  });
});
