import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postThenGiveUp } from "./raw-http.js";
import { startV2Harness, type V2Harness } from "./v2-harness.js";
import { waitFor } from "./wait-for.js";

// Issue 28 item 1: a client that gives up on a compute or a training (a client timeout, a killed curl) gets its
// in-flight slot back at once, for itself and for every other partner; a compute nobody waits for is cancelled, a
// training goes on to its end. The real server on a loopback port, the real engine, real sockets.

const V2 = "/public/v1/v2";
let h: V2Harness;
const logs: Record<string, unknown>[] = [];
let mine: Record<string, string>;
let theirs: Record<string, string>;

beforeAll(async () => {
  h = await startV2Harness(
    "2026-03-10T03:00:00Z",
    { trainSeconds: 3, trainHorizonDays: 21, runDays: 14, minHistoryDays: 28, planThreads: 1 },
    // One slot per partner, two on the server: two abandoned requests would lock everyone out if they leaked.
    { rateLimits: { expensiveConcurrency: { perPartner: 1, total: 2 } } },
    logs,
  );
  // 12 products x 366 days: a plan large enough that cancelling it ends its planning thread.
  await h.seedCompany("big", { products: 12 });
  await h.seedCompany("small", { products: 2 });
  mine = { authorization: `Bearer ${await h.token(await h.partner(["big"]))}` };
  theirs = { authorization: `Bearer ${await h.token(await h.partner(["small"]))}` };
}, 120_000);

afterAll(async () => {
  await h?.destroy();
});

const logged = (prefix: string) => logs.filter((l) => String(l.msg).startsWith(prefix)).length;

async function compute(auth: Record<string, string>, companyId: string): Promise<number> {
  const res = await fetch(`${h.url}${V2}/recommendations/compute`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ company_id: companyId, dry_run: true, end_date: "2026-03-12" }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("a client that gives up", () => {
  it("on a compute gets its slot back at once, and the plan is cancelled with its thread", async () => {
    const giveUp = postThenGiveUp(`${h.url}${V2}/recommendations/compute`, mine, {
      company_id: "big",
      dry_run: true,
      explain: true,
      end_date: "2027-03-10",
    });
    // The pool starts its first thread for this plan: it is running.
    await waitFor(() => h.ctx.planning.stats().length === 1, { what: "the large plan to start" });
    const [planner] = h.ctx.planning.stats();
    expect(await compute(mine, "big")).toBe(429);
    giveUp();
    await waitFor(() => logged("request abandoned by its client") === 1, {
      what: "the compute to be cancelled",
    });
    // At once: nothing waits for the cancelled plan, whose thread was ended.
    expect(await compute(mine, "big")).toBe(200);
    expect(await compute(theirs, "small")).toBe(200);
    expect(h.ctx.planning.stats().map((t) => t.threadId)).not.toContain(planner?.threadId);
    expect(logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
  }, 120_000);

  it("on trainings gets every slot back at once, and the trainings go on to their end", async () => {
    const before = logged("client closed the connection before the answer");
    const giveUpMine = postThenGiveUp(`${h.url}${V2}/model/train`, mine, { company_id: "big" });
    const giveUpTheirs = postThenGiveUp(`${h.url}${V2}/model/train`, theirs, { company_id: "small" });
    await waitFor(() => h.ctx.training.isTraining("big") && h.ctx.training.isTraining("small"), {
      what: "both trainings to run",
    });
    // Both partners' slots and the server's two are taken.
    expect(await compute(mine, "big")).toBe(429);
    giveUpMine();
    giveUpTheirs();
    await waitFor(() => logged("client closed the connection before the answer") === before + 2, {
      what: "both slots to be given back",
    });
    expect(await compute(mine, "big")).toBe(200);
    expect(await compute(theirs, "small")).toBe(200);
    // Nobody waits for them, yet each training ends with its model in the latest slot.
    for (const [auth, company] of [
      [mine, "big"],
      [theirs, "small"],
    ] as const) {
      await waitFor(() => !h.ctx.training.isTraining(company), { what: `${company}'s training to end` });
      const model = await fetch(`${h.url}${V2}/model?company_id=${company}`, { headers: auth });
      expect(model.status).toBe(200);
      expect(((await model.json()) as { latest: { version: number } | null }).latest?.version).toBe(1);
    }
    expect(logs.filter((l) => Number(l.level) >= 50)).toEqual([]);
  }, 120_000);
});
