import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "./v2-harness.js";
import { waitFor } from "./wait-for.js";

// Issue 28 item 3: one partner's large computes cannot hold another's small one, and an answer over the server's
// price limit is refused before it is planned. The real server on a loopback port, the real engine and its
// planning thread (one, so that every plan waits its turn on it).

const V2 = "/public/v1/v2";
const MAX_PRICES = 2_000;

async function harness(computeMaxPrices: number): Promise<V2Harness> {
  return startV2Harness(
    "2026-03-10T03:00:00Z",
    {
      trainSeconds: 1.5,
      trainHorizonDays: 21,
      runDays: 14,
      minHistoryDays: 28,
      planThreads: 1,
      computeMaxPrices,
    },
    { rateLimits: { expensiveConcurrency: { perPartner: 8, total: 16 } } },
  );
}

const compute = (h: V2Harness, token: string, body: Record<string, unknown>) =>
  h.post(`${V2}/recommendations/compute`, token, { dry_run: true, ...body });

describe("the compute price limit", () => {
  let h: V2Harness;
  let a: string;

  beforeAll(async () => {
    h = await harness(MAX_PRICES);
    await h.seedCompany("big", { products: 12, tightStock: false });
    a = await h.token(await h.partner(["big"]));
  }, 120_000);

  afterAll(async () => {
    await h?.destroy();
  });

  it("refuses an answer over the price limit before planning, naming the limit and the days that fit", async () => {
    const runs = async () =>
      ((await (await h.get(`${V2}/runs?company_id=big`, a)).json()) as { runs: unknown[] }).runs.length;
    const before = await runs();
    // 12 products x 366 days x 2 (explained) = 8,784 prices.
    const res = await compute(h, a, {
      company_id: "big",
      dry_run: false,
      explain: true,
      end_date: "2027-03-10",
    });
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("answer_too_large");
    expect(error.message).toContain("8784 prices (12 products x 366 days, explained prices counting twice)");
    expect(error.message).toContain(`limit of ${MAX_PRICES} (PRICING_COMPUTE_MAX_PRICES)`);
    expect(error.message).toContain("at most 83 days");
    expect(await runs()).toBe(before);
    expect(h.ctx.planning.stats().every((t) => t.planned === 0)).toBe(true);
    // The range it names fits, explained; without explain twice as many days do.
    const fits = await compute(h, a, { company_id: "big", explain: true, end_date: "2026-05-31" });
    expect(fits.status).toBe(200);
    expect(((await fits.json()) as { recommendations: unknown[] }).recommendations).toHaveLength(12 * 83);
    expect((await compute(h, a, { company_id: "big", end_date: "2026-08-22" })).status).toBe(200);
    expect((await compute(h, a, { company_id: "big", end_date: "2026-08-23" })).status).toBe(422);
  }, 120_000);
});

describe("fair planning", () => {
  let h: V2Harness;
  let a: string;
  let b: string;

  beforeAll(async () => {
    // A's computes must outlast the others' arrival so that three of them wait: a year of 40 products is ~15,000
    // prices, a few hundred milliseconds of the planning thread, where the price-limited ones above now take tens.
    h = await harness(20_000);
    await h.seedCompany("big", { products: 40, tightStock: false });
    await h.seedCompany("small", { products: 2 });
    a = await h.token(await h.partner(["big"]));
    b = await h.token(await h.partner(["small"]));
  }, 120_000);

  afterAll(async () => {
    await h?.destroy();
  });

  it("plans another partner's small compute next, not behind every large one waiting", async () => {
    const done: string[] = [];
    const large = (name: string) =>
      compute(h, a, { company_id: "big", end_date: "2027-03-09" }).then(async (res) => {
        await res.arrayBuffer();
        done.push(`${name}:${res.status}`);
      });
    const all = [large("a1"), large("a2"), large("a3"), large("a4")];
    // One plans, three wait in A's queue; then B asks.
    await waitFor(() => h.ctx.planning.waiting() === 3, { what: "A's three computes to wait" });
    all.push(
      compute(h, b, { company_id: "small" }).then(async (res) => {
        await res.arrayBuffer();
        done.push(`b1:${res.status}`);
      }),
    );
    await Promise.all(all);
    // B's compute is planned next once the plan running when it asked ends, so it ends among the first three (first,
    // when its small answer is out before a1's large one; third, when a1's plan ended before B's request reached the
    // queue on a loaded machine). A first-come queue would plan it last, after a4.
    expect(done.indexOf("b1:200")).toBeLessThanOrEqual(2);
    expect(done.filter((d) => d !== "b1:200").sort()).toEqual(["a1:200", "a2:200", "a3:200", "a4:200"]);
  }, 180_000);
});
