import { ApiError, PricingClient } from "@pricing/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";

// The client's idempotency keys, conditional reads, history and rollback against the real server. The fetch it
// is given is the real one, recording what went over the wire (and, on cue, spoiling a token so that the real
// server refuses it).

const COMPANY = "client-co";

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  status: number;
  /** The answer's Content-Encoding; fetch has decoded the body already. */
  encoding: string | null;
}

describe("PricingClient: idempotency, conditional reads, history and rollback", () => {
  let h: V2Harness;
  let keys: { access_key: string; secret_key: string };
  const sent: Sent[] = [];
  let spoilNextToken = false;

  const client = (options: { conditionalCacheSize?: number } = {}) =>
    new PricingClient({
      baseUrl: h.url,
      accessKey: keys.access_key,
      secretKey: keys.secret_key,
      ...options,
      fetch: async (url, init) => {
        const headers = { ...(init.headers as Record<string, string>) };
        if (spoilNextToken && headers.authorization !== undefined) {
          spoilNextToken = false;
          headers.authorization = `${headers.authorization}x`;
        }
        const response = await fetch(url, { ...init, headers });
        sent.push({
          method: init.method ?? "GET",
          url,
          headers,
          status: response.status,
          encoding: response.headers.get("content-encoding"),
        });
        return response;
      },
    });
  const v2 = (path: string) => sent.filter((s) => s.url.includes(path));

  beforeAll(async () => {
    h = await startV2Harness();
    await h.seedCompany(COMPANY, { products: 2 });
    keys = await h.partner([COMPANY]);
  });
  afterAll(async () => h?.destroy());

  it("sends a fresh Idempotency-Key per POST, the same on its own retry, and the caller's when given", async () => {
    const api = client();
    await api.computeRecommendations({ company_id: COMPANY, dry_run: true });
    await api.computeRecommendations({ company_id: COMPANY, dry_run: true });
    const [a, b] = v2("/compute").map((s) => s.headers["idempotency-key"]);
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);

    // The real server refuses the spoiled token; the client exchanges a new one and retries with the same key.
    sent.length = 0;
    spoilNextToken = true;
    await api.computeRecommendations({ company_id: COMPANY, dry_run: true });
    const attempts = v2("/compute");
    expect(attempts.map((s) => s.status)).toEqual([401, 200]);
    expect(attempts[1]?.headers["idempotency-key"]).toBe(attempts[0]?.headers["idempotency-key"]);

    const first = await api.trainModel({ company_id: COMPANY }, { idempotencyKey: "client-train-1" });
    const again = await api.trainModel({ company_id: COMPANY }, { idempotencyKey: "client-train-1" });
    expect(again).toEqual(first);
    expect(await h.ctx.policies.store.listVersions(COMPANY)).toHaveLength(1);
    const reused = await api
      .trainModel({ company_id: COMPANY, auto_approve: true }, { idempotencyKey: "client-train-1" })
      .catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(ApiError);
    expect(reused).toMatchObject({ status: 422, code: "idempotency_key_reused" });

    sent.length = 0;
    await api.computeRecommendations({ company_id: COMPANY, dry_run: true }, { idempotencyKey: false });
    expect(v2("/compute")[0]?.headers["idempotency-key"]).toBeUndefined();
  });

  it("reads conditionally: If-None-Match from its cache, the kept body on 304, the new one after a run", async () => {
    const api = client();
    await api.computeRecommendations({ company_id: COMPANY });
    sent.length = 0;
    const runs = await api.listRuns({ company_id: COMPANY });
    const recs = await api.getRecommendations({ company_id: COMPANY });
    expect(await api.listRuns({ company_id: COMPANY })).toEqual(runs);
    expect(await api.getRecommendations({ company_id: COMPANY })).toEqual(recs);
    expect(v2("/v2/runs").map((s) => [s.status, s.headers["if-none-match"] !== undefined])).toEqual([
      [200, false],
      [304, true],
    ]);
    // fetch asks for gzip by itself and decodes it: the run comes gzipped, and its gzip tag revalidates it.
    expect(v2("/v2/recommendations?").map((s) => [s.status, s.encoding])).toEqual([
      [200, "gzip"],
      [304, null],
    ]);

    await api.computeRecommendations({ company_id: COMPANY });
    const next = await api.listRuns({ company_id: COMPANY });
    expect(next.total).toBe(runs.total + 1);
    expect(v2("/v2/runs").at(-1)?.status).toBe(200);

    sent.length = 0;
    const uncached = client({ conditionalCacheSize: 0 });
    await uncached.listRuns({ company_id: COMPANY });
    await uncached.listRuns({ company_id: COMPANY });
    expect(v2("/v2/runs").map((s) => s.status)).toEqual([200, 200]);
  });

  it("explain: each item's explanation on compute and on reads, cached apart from the plain read", async () => {
    const api = client();
    const dry = await api.computeRecommendations({ company_id: COMPANY, dry_run: true, explain: true });
    expect(dry.recommendations.every((r) => r.explanation != null)).toBe(true);
    const run = await api.computeRecommendations({ company_id: COMPANY });
    expect(run.recommendations.every((r) => !("explanation" in r))).toBe(true);
    sent.length = 0;
    const plain = await api.getRecommendations({ company_id: COMPANY });
    const explained = await api.getRecommendations({ company_id: COMPANY, explain: true });
    expect(plain.recommendations.every((r) => !("explanation" in r))).toBe(true);
    expect(explained.recommendations.map(({ explanation: _, ...r }) => r)).toEqual(plain.recommendations);
    const binding = explained.recommendations[0]?.explanation?.binding;
    expect([null, "min_price", "max_price", "max_daily_change", "exploration_limit"]).toContain(binding);
    expect(await api.getRecommendations({ company_id: COMPANY, explain: true })).toEqual(explained);
    expect(v2("/v2/recommendations?").map((s) => [s.status, s.url.includes("explain=true")])).toEqual([
      [200, false],
      [200, true],
      [304, true],
    ]);
  });

  it("getModelHistory and rollbackModel: back to the first approved artifact, stale is 409", async () => {
    const api = client();
    const v1 = await api.trainModel({ company_id: COMPANY, auto_approve: true });
    h.setNow(new Date(h.now().getTime() + 60_000).toISOString());
    const v2m = await api.trainModel({ company_id: COMPANY, auto_approve: true });
    h.setNow(new Date(h.now().getTime() + 60_000).toISOString());
    const stale = await api
      .rollbackModel({ company_id: COMPANY, model_id: v1.model_id, expected_approved_model_id: v1.model_id })
      .catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 409, code: "approved_model_stale" });
    const report = await api.rollbackModel({
      company_id: COMPANY,
      model_id: v1.model_id,
      expected_approved_model_id: v2m.model_id,
    });
    expect(report).toMatchObject({ source: "approved", approved: { model_id: v1.model_id } });
    const history = await api.getModelHistory({ company_id: COMPANY, limit: 5 });
    expect(history.events.map((e) => [e.kind, e.model_id])).toEqual([
      ["rolled_back", v1.model_id],
      ["promoted", v2m.model_id],
      ["trained", v2m.model_id],
      ["promoted", v1.model_id],
      ["trained", v1.model_id],
    ]);
    expect(history.artifacts[0]?.model_id).toBe(v2m.model_id);
  });
});
