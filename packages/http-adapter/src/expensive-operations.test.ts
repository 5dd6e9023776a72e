import { describe, expect, it } from "vitest";
import type { ComputeResponse } from "./schemas/recommendations.js";
import {
  bearer,
  COMPANY,
  expectError,
  OTHER_COMPANY,
  OTHER_PARTNER,
  RULE_FALLBACK_REPORT,
  startAdapterApp,
} from "./test-support/adapter-app.js";

const computed = (companyId: string): ComputeResponse => ({
  company_id: companyId,
  persisted: false,
  run: null,
  source: "rule",
  model_id: null,
  recommendations: [],
});

function compute(
  app: Awaited<ReturnType<typeof startAdapterApp>>["app"],
  headers: object,
  company = COMPANY,
) {
  return app.inject({
    method: "POST",
    url: "/public/v1/v2/recommendations/compute",
    headers: headers as Record<string, string>,
    payload: { company_id: company, dry_run: true },
  });
}

describe("expensive operations", () => {
  it("have their own per-partner rate limit: 429 rate_limited with Retry-After, cheap calls and other partners unaffected", async () => {
    const { app } = await startAdapterApp({
      rateLimits: {
        computePerPartner: { max: 2, windowMs: 60_000 },
        dataPerPartner: { max: 3, windowMs: 60_000 },
      },
      pricing: {
        compute: async (input) => computed(input.company_id),
        getModel: async () => RULE_FALLBACK_REPORT,
      },
    });
    const mine = await bearer();
    expect((await compute(app, mine)).statusCode).toBe(200);
    expect((await compute(app, mine)).statusCode).toBe(200);
    const limited = await compute(app, mine);
    expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // The computes did not use up the data limit (3), and the neighbour has a window of its own.
    for (let i = 0; i < 3; i++) {
      const read = await app.inject({
        url: "/public/v1/v2/model",
        query: { company_id: COMPANY },
        headers: mine,
      });
      expect(read.statusCode, read.body).toBe(200);
    }
    expect((await compute(app, await bearer(OTHER_PARTNER), OTHER_COMPANY)).statusCode).toBe(200);
  });

  it("are capped in flight per partner: one more is 429 with Retry-After until one finishes", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { app } = await startAdapterApp({
      rateLimits: { expensiveConcurrency: { perPartner: 1, total: 2 } },
      pricing: {
        compute: async (input) => {
          started();
          await gate;
          return computed(input.company_id);
        },
      },
    });
    const mine = await bearer();
    const first = compute(app, mine);
    await running;
    const busy = await compute(app, mine);
    expectError(busy, 429, "rate_limited");
    expect(busy.headers["retry-after"]).toBe("5");
    // Another partner still has a slot of its own.
    const neighbour = compute(app, await bearer(OTHER_PARTNER), OTHER_COMPANY);
    release();
    expect((await first).statusCode).toBe(200);
    expect((await neighbour).statusCode).toBe(200);
    expect((await compute(app, mine)).statusCode).toBe(200);
  });

  it("state their limits in the OpenAPI description", async () => {
    const { app } = await startAdapterApp({
      rateLimits: { trainPerPartner: { max: 3, windowMs: 3_600_000 } },
    });
    const doc = (await app.inject({ url: "/public/v1/openapi.json" })).json();
    expect(doc.paths["/v2/model/train"].post.description).toContain("3 per 60 minutes");
    expect(doc.paths["/v2/recommendations/compute"].post.description).toContain("60 per minute");
    expect(doc.paths["/v2/recommendations/compute"].post.description).toContain(
      "429 rate_limited with Retry-After",
    );
  });
});
