import { describe, expect, it } from "vitest";
import { postThenGiveUp } from "../../../test/raw-http.js";
import { waitFor } from "../../../test/wait-for.js";
import { ClientGoneError } from "./client-gone.js";
import type { TrainResponse } from "./schemas/model.js";
import type { ComputeResponse } from "./schemas/recommendations.js";
import {
  bearer,
  COMPANY,
  expectError,
  OTHER_COMPANY,
  OTHER_PARTNER,
  PARTNER,
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

const trained = (companyId: string): TrainResponse => ({
  company_id: companyId,
  model_id: "mdl_1",
  version: 1,
  trained_at: "2026-11-21T12:00:00.000Z",
  auto_approved: false,
  slots: { latest: "mdl_1", approved: null },
  metrics: {},
});

/** A promise and the function that resolves it: a test's event. */
function signalled<T = void>(): { promise: Promise<T>; fire: (value: T) => void } {
  let fire: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

/** A POST on a real socket, read to the end. */
async function post(base: string, path: string, headers: object, body: unknown) {
  const res = await fetch(new URL(path, base), {
    method: "POST",
    headers: { ...(headers as Record<string, string>), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

const COMPUTE = "/public/v1/v2/recommendations/compute";
const TRAIN = "/public/v1/v2/model/train";

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

  it("give their slot back at once when the client gives up on a compute, and cancel its work", async () => {
    const computing = signalled();
    const cancelled = signalled<unknown>();
    let calls = 0;
    const { app, logs } = await startAdapterApp({
      rateLimits: { expensiveConcurrency: { perPartner: 1, total: 2 } },
      pricing: {
        compute: async (input, ctx) => {
          calls += 1;
          if (calls > 1) return computed(input.company_id);
          computing.fire();
          // Work that ends only when the client goes away, as a plan cancelled through the signal does.
          return new Promise<ComputeResponse>((_, reject) => {
            ctx.signal?.addEventListener("abort", () => {
              cancelled.fire(ctx.signal?.reason);
              reject(ctx.signal?.reason);
            });
          });
        },
      },
    });
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const mine = await bearer();
    const giveUp = postThenGiveUp(`${base}${COMPUTE}`, mine, { company_id: COMPANY, dry_run: true });
    await computing.promise;
    expectError(await compute(app, mine), 429, "rate_limited");
    giveUp();
    expect(await cancelled.promise).toBeInstanceOf(ClientGoneError);
    // The slot was given back before the work heard of it: the same partner computes at once, and so does another.
    expect((await post(base, COMPUTE, mine, { company_id: COMPANY, dry_run: true })).status).toBe(200);
    const theirs = await bearer(OTHER_PARTNER);
    expect((await post(base, COMPUTE, theirs, { company_id: OTHER_COMPANY, dry_run: true })).status).toBe(
      200,
    );
    await waitFor(() => logs.some((l) => String(l.msg).startsWith("request abandoned by its client")), {
      what: "the abandoned compute's log line",
    });
    // Logged as what it is, not as a failure.
    expect(logs.filter((l) => Number(l.level) >= 40)).toEqual([]);
  });

  it("give their slot back at once when the clients give up on trainings, which go on to their end", async () => {
    const started = signalled();
    const startedToo = signalled();
    const finish = signalled();
    const finished: string[] = [];
    const { app, logs } = await startAdapterApp({
      rateLimits: { expensiveConcurrency: { perPartner: 1, total: 2 } },
      pricing: {
        train: async (input) => {
          (input.company_id === COMPANY ? started : startedToo).fire();
          // A training ignores its client: one per company bounds it, and a retry with its Idempotency-Key gets it.
          await finish.promise;
          finished.push(input.company_id);
          return trained(input.company_id);
        },
        compute: async (input) => computed(input.company_id),
      },
    });
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const mine = await bearer();
    const theirs = await bearer(OTHER_PARTNER);
    const giveUpMine = postThenGiveUp(`${base}${TRAIN}`, mine, { company_id: COMPANY });
    const giveUpTheirs = postThenGiveUp(`${base}${TRAIN}`, theirs, { company_id: OTHER_COMPANY });
    await Promise.all([started.promise, startedToo.promise]);
    // Both partners' slots and the whole server's (2) are taken.
    expectError(await compute(app, mine), 429, "rate_limited");
    giveUpMine();
    giveUpTheirs();
    const freed = () =>
      logs.filter((l) => String(l.msg).startsWith("client closed the connection before the answer")).length;
    await waitFor(() => freed() === 2, { what: "both trainings' slots given back" });
    // Still training, yet every slot is free again, for both partners.
    expect(finished).toEqual([]);
    expect((await post(base, COMPUTE, mine, { company_id: COMPANY, dry_run: true })).status).toBe(200);
    expect((await post(base, COMPUTE, theirs, { company_id: OTHER_COMPANY, dry_run: true })).status).toBe(
      200,
    );
    finish.fire();
    await waitFor(() => finished.length === 2, { what: "the trainings to end" });
    expect(finished.sort()).toEqual([COMPANY, OTHER_COMPANY].sort());
    expect(logs.filter((l) => Number(l.level) >= 40)).toEqual([]);
  });

  it("take no slot for a request whose client left before it reached the cap", async () => {
    const checking = signalled();
    const checked = signalled();
    let holdNext = true;
    let computes = 0;
    const { app, logs } = await startAdapterApp({
      rateLimits: { expensiveConcurrency: { perPartner: 1, total: 1 } },
      auth: {
        // The company check, the last step before the cap, is where this client leaves.
        async isCompanyAccessible(partnerId, companyId) {
          if (holdNext) {
            holdNext = false;
            checking.fire();
            await checked.promise;
          }
          return partnerId === PARTNER && companyId === COMPANY;
        },
      },
      pricing: {
        compute: async (input) => {
          computes += 1;
          return computed(input.company_id);
        },
      },
    });
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const closed = signalled();
    app.server.once("connection", (socket) => socket.once("close", () => closed.fire()));
    const mine = await bearer();
    const giveUp = postThenGiveUp(`${base}${COMPUTE}`, mine, { company_id: COMPANY, dry_run: true });
    await checking.promise;
    giveUp();
    // The server has seen the connection close before the request goes on to the cap.
    await closed.promise;
    checked.fire();
    await waitFor(() => logs.some((l) => String(l.msg).startsWith("request abandoned by its client")), {
      what: "the abandoned request to reach the cap",
    });
    expect(computes).toBe(0);
    expect((await post(base, COMPUTE, mine, { company_id: COMPANY, dry_run: true })).status).toBe(200);
    expect(computes).toBe(1);
  });
});
