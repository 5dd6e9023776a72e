import { runNightlyBatch } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePrometheusText, type Scrape } from "./prometheus-text.js";
import { startV2Harness, TEST_SETTINGS, type V2Harness } from "./v2-harness.js";

const V2 = "/public/v1/v2";
const TOKEN_ROUTE = "/public/v1/auth/token";
let h: V2Harness;

beforeAll(async () => {
  h = await startV2Harness("2026-03-09T03:00:00Z", TEST_SETTINGS, { metricsPort: 0 });
  await h.seedCompany("acme-eu", { products: 3, tightStock: true });
});

afterAll(async () => {
  await h?.destroy();
});

function metricsUrl(): string {
  const url = h.server.metricsUrl;
  if (url === null) throw new Error("the harness started no metrics listener");
  return url;
}

async function scrape(): Promise<{ text: string; parsed: Scrape }> {
  const res = await fetch(metricsUrl());
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return { text, parsed: parsePrometheusText(text) };
}

/** Observations of histogram `name` over its series whose labels include `labels` (0 when none has any). */
function histogramCount(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  return s.histogram(name, labels).reduce((total, series) => total + series.count, 0);
}

describe("Prometheus metrics on their own port", () => {
  it("count a demo-like flow: token exchanges, reads, a training and nightly batches", async () => {
    const keys = await h.partner(["acme-eu"]);
    const before = (await scrape()).parsed;
    // Before anything ran: the seeded company is on the rule (read from its empty slots), nothing trained.
    expect(before.value("pricing_active_source_companies", { source: "rule" })).toBe(1);
    expect(before.value("pricing_active_source_companies", { source: "approved" })).toBe(0);
    expect(before.value("pricing_trainings_total", { outcome: "succeeded" })).toBe(0);
    expect(before.value("pricing_token_exchanges_total", { outcome: "issued" })).toBe(0);
    expect(histogramCount(before, "pricing_training_duration_seconds")).toBe(0);

    const refused = await fetch(`${h.url}${TOKEN_ROUTE}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ access_key: keys.access_key, secret_key: `${keys.secret_key}x` }),
    });
    expect(refused.status).toBe(401);
    const token = await h.token(keys);

    const first = await runNightlyBatch(h.ctx, { trigger: "schedule" });
    expect(first.companies).toMatchObject([{ status: "created" }]);
    expect((await h.get(`${V2}/recommendations?company_id=acme-eu`, token)).status).toBe(200);
    expect((await h.get(`${V2}/recommendations?company_id=acme-eu&runs_ago=5`, token)).status).toBe(404);

    const trained = await h.post(`${V2}/model/train`, token, { company_id: "acme-eu", auto_approve: true });
    expect(trained.status).toBe(200);
    h.setNow("2026-03-10T03:00:00Z");
    const second = await runNightlyBatch(h.ctx, { trigger: "schedule" });
    expect(second.companies).toMatchObject([{ status: "created" }]);

    const { text, parsed: after } = await scrape();

    // HTTP: by route pattern (no raw URL: no query string, no company id) and status.
    const http = "pricing_http_request_duration_seconds";
    expect(after.family(http).type).toBe("histogram");
    const reads = { route: `${V2}/recommendations`, method: "GET" };
    expect(histogramCount(after, http, { ...reads, status: "200" })).toBe(1);
    expect(histogramCount(after, http, { ...reads, status: "404" })).toBe(1);
    expect(histogramCount(after, http, { route: TOKEN_ROUTE, status: "200" })).toBe(1);
    expect(histogramCount(after, http, { route: TOKEN_ROUTE, status: "401" })).toBe(1);
    expect(histogramCount(after, http, { route: `${V2}/model/train`, status: "200" })).toBe(1);
    for (const series of after.histogram(http)) {
      expect(series.labels.route).not.toMatch(/[?]|acme-eu/);
      expect(series.sum).toBeGreaterThan(0);
    }

    // Token exchanges by outcome.
    expect(after.family("pricing_token_exchanges_total").type).toBe("counter");
    expect(after.value("pricing_token_exchanges_total", { outcome: "issued" })).toBe(1);
    expect(after.value("pricing_token_exchanges_total", { outcome: "invalid_credentials" })).toBe(1);
    expect(after.value("pricing_token_exchanges_total", { outcome: "rate_limited" })).toBe(0);

    // Trainings: one succeeded, one observation of its duration, none running now.
    expect(after.value("pricing_trainings_total", { outcome: "succeeded" })).toBe(1);
    expect(after.value("pricing_trainings_total", { outcome: "conflict" })).toBe(0);
    expect(histogramCount(after, "pricing_training_duration_seconds")).toBe(1);
    const [training] = after.histogram("pricing_training_duration_seconds", { outcome: "succeeded" });
    expect(training?.count).toBe(1);
    expect(training?.sum).toBeGreaterThan(0.1);
    expect(after.value("pricing_trainings_running")).toBe(0);

    // Nightly batches: two companies created over two batches, none failed, none running.
    expect(after.value("pricing_batch_companies_total", { outcome: "created" })).toBe(2);
    expect(after.value("pricing_batch_companies_total", { outcome: "failed" })).toBe(0);
    expect(histogramCount(after, "pricing_batch_duration_seconds")).toBe(2);
    expect(after.value("pricing_batch_in_progress")).toBe(0);
    expect(after.value("pricing_batch_last_finished_timestamp_seconds")).toBeGreaterThan(
      before.value("pricing_batch_last_finished_timestamp_seconds"),
    );

    // The trained company runs on its auto-approved policy.
    expect(after.family("pricing_active_source_companies").type).toBe("gauge");
    expect(after.value("pricing_active_source_companies", { source: "approved" })).toBe(1);
    expect(after.value("pricing_active_source_companies", { source: "latest" })).toBe(0);
    expect(after.value("pricing_active_source_companies", { source: "rule" })).toBe(0);

    // Node process metrics, under their standard names.
    expect(after.value("process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(after.value("nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    expect(after.family("nodejs_eventloop_lag_seconds").type).toBe("gauge");

    // No secret reaches the exposition.
    for (const secret of [keys.access_key, keys.secret_key, token]) expect(text).not.toContain(secret);
  }, 120_000);

  it("answers only /metrics on the metrics port", async () => {
    const other = await fetch(new URL("/public/v1/healthz", metricsUrl()));
    expect(other.status).toBe(404);
    const post = await fetch(metricsUrl(), { method: "POST" });
    expect(post.status).toBe(405);
  });

  it("never serves /metrics on the public port: a 404 envelope there", async () => {
    expect(new URL(metricsUrl()).port).not.toBe(new URL(h.url).port);
    for (const path of ["/metrics", "/public/v1/metrics"]) {
      const res = await fetch(`${h.url}${path}`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; request_id: string } };
      expect(body.error.code).toBe("not_found");
      expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
    }
  });
});
