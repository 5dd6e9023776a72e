import { runNightlyBatch } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely
type Json = any;

const V2 = "/public/v1/v2";
let h: V2Harness;

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z");
  await h.seedCompany("acme-eu", { products: 3, tightStock: true });
});

afterAll(async () => {
  await h?.destroy();
});

async function body(res: Response): Promise<Json> {
  return res.json();
}

describe("the seed's V2 story end to end (real server, loopback port, SQLite, artifact folder)", () => {
  it("exchange, read, list, compute, train, promote, auto-approve, next nightly run", async () => {
    const keys = await h.partner(["acme-eu"]);

    // Two nightly runs on two days, before any policy exists: the rule backs them.
    const first = await runNightlyBatch(h.ctx, { trigger: "schedule" });
    expect(first.companies).toMatchObject([
      { company_id: "acme-eu", as_of: "2026-03-09", status: "created" },
    ]);
    h.setNow("2026-03-10T03:00:00Z");
    const second = await runNightlyBatch(h.ctx, { trigger: "schedule" });
    expect(second.companies).toMatchObject([
      { company_id: "acme-eu", as_of: "2026-03-10", status: "created" },
    ]);

    // 1. Exchange keys for a token.
    const token = await h.token(keys);

    // 2. Read: runs_ago 0 and 1, the inclusive date filter, 404 past the oldest run.
    const latest = await body(await h.get(`${V2}/recommendations?company_id=acme-eu`, token));
    expect(latest.run).toMatchObject({
      kind: "nightly",
      as_of: "2026-03-10",
      source: "rule",
      model_id: null,
    });
    expect(latest.recommendations.length).toBe(latest.run.recommendation_count);
    expect(latest.recommendations[0]).toMatchObject({ date: "2026-03-10", currency: "EUR", source: "rule" });
    const previous = await body(await h.get(`${V2}/recommendations?company_id=acme-eu&runs_ago=1`, token));
    expect(previous.run.as_of).toBe("2026-03-09");
    expect(previous.run.run_id).not.toBe(latest.run.run_id);

    const filtered = await body(
      await h.get(
        `${V2}/recommendations?company_id=acme-eu&start_date=2026-03-11&end_date=2026-03-13`,
        token,
      ),
    );
    const dates = [...new Set(filtered.recommendations.map((r: Json) => r.date))];
    expect(dates).toEqual(["2026-03-11", "2026-03-12", "2026-03-13"]);
    expect(filtered.recommendations).toHaveLength(3 * latest.run.products);
    const sorted = [...filtered.recommendations].sort((a: Json, b: Json) =>
      a.date === b.date ? (a.product_id < b.product_id ? -1 : 1) : a.date < b.date ? -1 : 1,
    );
    expect(filtered.recommendations).toEqual(sorted);

    const missing = await h.get(`${V2}/recommendations?company_id=acme-eu&runs_ago=2`, token);
    expect(missing.status).toBe(404);
    expect((await body(missing)).error.code).toBe("no_run_at_offset");

    // 3. List runs: newest first, with the offset to read each.
    const listed = await body(await h.get(`${V2}/runs?company_id=acme-eu`, token));
    expect(listed.total).toBe(2);
    expect(listed.runs.map((r: Json) => [r.as_of, r.runs_ago])).toEqual([
      ["2026-03-10", 0],
      ["2026-03-09", 1],
    ]);

    // 4. Compute: a dry run persists nothing; a persisted one becomes runs_ago 0 with the same rows.
    const dry = await body(
      await h.post(`${V2}/recommendations/compute`, token, { company_id: "acme-eu", dry_run: true }),
    );
    expect(dry).toMatchObject({ persisted: false, run: null, source: "rule", model_id: null });
    expect(dry.recommendations.length).toBeGreaterThan(0);
    expect((await body(await h.get(`${V2}/runs?company_id=acme-eu`, token))).total).toBe(2);
    const kept = await body(await h.post(`${V2}/recommendations/compute`, token, { company_id: "acme-eu" }));
    expect(kept.persisted).toBe(true);
    expect(kept.run).toMatchObject({ kind: "on_demand", as_of: "2026-03-10" });
    const reread = await body(await h.get(`${V2}/recommendations?company_id=acme-eu&runs_ago=0`, token));
    expect(reread.run.run_id).toBe(kept.run.run_id);
    expect(reread.recommendations).toEqual(kept.recommendations);
    expect((await body(await h.get(`${V2}/runs?company_id=acme-eu`, token))).total).toBe(3);

    // 5. Train without auto_approve: the report says latest.
    const trainRes = await h.post(`${V2}/model/train`, token, { company_id: "acme-eu" });
    expect(trainRes.status).toBe(200);
    const trained = await body(trainRes);
    expect(trained).toMatchObject({ company_id: "acme-eu", version: 1, auto_approved: false });
    expect(trained.slots).toEqual({ latest: trained.model_id, approved: null });
    expect(trained.metrics.policyMargin).toBeGreaterThan(0);
    // The renamed metric, and its deprecated old name for one release, with the same value.
    expect(trained.metrics.networkEstimatedMargin).toBeGreaterThan(0);
    expect(trained.metrics.estimatedMargin).toBe(trained.metrics.networkEstimatedMargin);
    const afterTrain = await body(await h.get(`${V2}/model?company_id=acme-eu`, token));
    expect(afterTrain.latest.metrics).toEqual(trained.metrics);
    expect(afterTrain).toMatchObject({
      source: "latest",
      model_id: trained.model_id,
      approved: null,
      fallback_reason: null,
    });

    // 6. Promote a stale id: 409, and the current id is what GET /v2/model reports as latest.
    const stale = await h.post(`${V2}/model/promote`, token, {
      company_id: "acme-eu",
      model_id: "mdl_01JD2W5K3Q7Y8Z9A0B1C2D3E4F",
    });
    expect(stale.status).toBe(409);
    expect((await body(stale)).error.code).toBe("model_id_stale");
    const current = (await body(await h.get(`${V2}/model?company_id=acme-eu`, token))).latest.model_id;
    expect(current).toBe(trained.model_id);

    // 7. Promote the current id: approved.
    const promoted = await body(
      await h.post(`${V2}/model/promote`, token, { company_id: "acme-eu", model_id: current }),
    );
    expect(promoted).toMatchObject({ source: "approved", model_id: current });
    expect(promoted.approved.model_id).toBe(current);

    // 8. Train with auto_approve: latest and approved move together.
    const auto = await body(
      await h.post(`${V2}/model/train`, token, { company_id: "acme-eu", auto_approve: true }),
    );
    expect(auto).toMatchObject({ version: 2, auto_approved: true });
    expect(auto.slots).toEqual({ latest: auto.model_id, approved: auto.model_id });
    expect(auto.model_id).not.toBe(current);

    // 9. The next nightly run uses it.
    h.setNow("2026-03-11T02:00:00Z");
    const next = await runNightlyBatch(h.ctx, { trigger: "schedule" });
    expect(next.companies[0]).toMatchObject({ as_of: "2026-03-11", status: "created" });
    const fresh = await body(await h.get(`${V2}/recommendations?company_id=acme-eu`, await h.token(keys)));
    expect(fresh.run).toMatchObject({
      kind: "nightly",
      as_of: "2026-03-11",
      source: "approved",
      model_id: auto.model_id,
    });
    expect(fresh.recommendations.length).toBeGreaterThan(0);
    for (const r of fresh.recommendations) {
      expect(r).toMatchObject({ source: "approved", model_id: auto.model_id });
    }
  }, 120_000);
});
