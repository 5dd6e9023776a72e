import { once } from "node:events";
import type { PricingService, TrainResponse } from "@pricing/http-adapter";
import { createPricingService, type ServerContext } from "@pricing/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Partner, startHarness } from "./http-harness.js";
import { type RawResponse, rawRequest } from "./raw-http.js";
import { waitFor } from "./wait-for.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEADERS_TIMEOUT_MS = 150;
const REQUEST_TIMEOUT_MS = 300;

let h: Harness;
let url: string;
let partner: Partner;
/** The train stub waits on this, so that it is in flight while the server's request timeout fires elsewhere. */
let stalledRequest: Promise<RawResponse> | undefined;

function busyFor(ms: number): void {
  // A synchronous training holds the event loop the whole time; so does this.
  const end = performance.now() + ms;
  while (performance.now() < end) {}
}

const pricing = (ctx: ServerContext): PricingService => ({
  ...createPricingService(ctx),
  async train(input): Promise<TrainResponse> {
    await stalledRequest;
    busyFor(3 * REQUEST_TIMEOUT_MS);
    return {
      company_id: input.company_id,
      model_id: "mdl_1",
      version: 1,
      trained_at: "2026-03-02T10:00:00.000Z",
      auto_approved: false,
      slots: { latest: "mdl_1", approved: null },
      metrics: { policyMargin: 2, ruleMargin: 1, upliftPct: 100, trainingSeconds: 1, episodes: 1 },
    };
  },
});

beforeAll(async () => {
  h = await startHarness(
    {
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: 200,
      maxConnections: 4,
    },
    { pricing },
  );
  partner = await h.partnerWithCompany("bounds-co");
  url = await h.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => h.destroy());

function expectTimeout(res: RawResponse): void {
  expect(res.status).toBe(408);
  expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(res.json).toEqual({
    error: { code: "request_timeout", message: expect.any(String), request_id: expect.stringMatching(UUID) },
  });
  expect(res.headers["x-request-id"]).toBe(res.json.error.request_id);
  expect(h.logs.some((l) => l.includes(res.json.error.request_id) && l.includes("request_timeout"))).toBe(
    true,
  );
}

describe("bounds on receiving a request", () => {
  it("408 request_timeout, in the envelope, for headers that stop halfway", async () => {
    const res = await rawRequest(url, ["GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "]);
    expectTimeout(res);
    expect(res.elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 20);
  });

  it("408 request_timeout, in the envelope, for a body that stops halfway", async () => {
    const res = await rawRequest(url, [
      "POST /public/v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n",
      '{"access_key":"ak_',
    ]);
    expectTimeout(res);
    expect(res.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 20);
  });

  it("never bounds the handler: a training that outlasts the request timeout, synchronously, still answers 200", async () => {
    const token = await h.token(partner);
    // The train waits for this stalled request's 408 (so the timeout checks run while it is in flight), then holds
    // the event loop for three request timeouts.
    stalledRequest = rawRequest(url, ["GET /healthz HTTP/1.1\r\nHost: x\r\n"]);
    const res = await fetch(`${url}/public/v1/v2/model/train`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ company_id: partner.company_id }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { model_id: string }).model_id).toBe("mdl_1");
    expectTimeout(await stalledRequest);
  });

  it("closes an idle keep-alive connection after its timeout", async () => {
    const res = await rawRequest(url, ["GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"]);
    expect(res.status).toBe(200);
    expect(res.elapsedMs).toBeGreaterThanOrEqual(180);
    // Node adds a second of grace to the idle timeout; Fastify's own default would be 72 s.
    expect(res.elapsedMs).toBeLessThan(3000);
  });

  it("holds at most maxConnections connections: one more is closed unanswered at once", async () => {
    const held = Array.from({ length: 4 }, () => rawRequest(url, ["GET /healthz HTTP/1.1\r\nHost: x\r\n"]));
    await waitFor(
      () => new Promise<boolean>((resolve) => h.app.server.getConnections((_e, n) => resolve(n === 4))),
      { what: "four open connections", intervalMs: 5 },
    );
    const dropped = once(h.app.server, "drop");
    const extra = await rawRequest(url, ["GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"]);
    await dropped;
    expect(extra.status).toBeNaN();
    for (const res of await Promise.all(held)) expectTimeout(res);
  });
});
