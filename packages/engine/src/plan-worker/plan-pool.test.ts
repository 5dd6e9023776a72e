import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { threadId } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPolicyArtifact, type PolicyArtifact } from "../artifact/policy-artifact.js";
import { EngineError } from "../base/engine-error.js";
import { planPrices } from "../plan/company-plan.js";
import { trainingInputFromHistory } from "../policy/company-training.js";
import { policyActivity } from "../policy/policy-activity.js";
import { trainArtifact } from "../training/train-artifact.js";
import { packPlan } from "./packed-plan.js";
import { type PlanArtifact, type PlanJob, planInputOf, runPlanJob } from "./plan-job.js";
import { createPlanPool, type PlanPool, startPlanPool } from "./plan-pool.js";
import { EXIT_DATE, HANG_DATE, market, policyJob, ruleJob } from "./test-support/plan-jobs.js";

let artifact: PolicyArtifact;
let pool: PlanPool;

beforeAll(async () => {
  artifact = await trainArtifact(
    trainingInputFromHistory({
      companyId: "pool",
      products: market.products.map((p) => ({ setup: p.setup, basePrice: p.referencePrice })),
      history: market.history,
      minHistoryDays: 28,
      config: { seed: 5, stepsPerDay: 10, finalSteps: 50 },
    }),
  );
  pool = createPlanPool({ size: 2 });
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

/** The job planned in this thread, as the server did before the pool. */
async function inThisThread(job: ReturnType<typeof ruleJob>) {
  const policy = job.active.artifact === null ? null : await loadPolicyArtifact(job.active.artifact);
  try {
    return planPrices(planInputOf(job, policy));
  } finally {
    policy?.dispose();
  }
}

describe("the planning pool", () => {
  it("plans exactly what planPrices plans in the caller's thread, with the policy and with the rule", async () => {
    for (const job of [policyJob("m1", artifact), ruleJob()]) {
      const pooled = await pool.plan(job);
      expect(pooled.length).toBeGreaterThan(2 * 14);
      // Byte for byte: the rows come back packed as columns and are rebuilt keys in the same order.
      expect(JSON.stringify(pooled)).toBe(JSON.stringify(await inThisThread(job)));
    }
    // What the server plans (learning, explained) comes back packed too, and the same.
    const learning: PlanJob = {
      ...policyJob("m1", artifact),
      explain: true,
      learning: { history: market.history, exploration: "cautious", seed: "pool", online: true },
    };
    const policy = await loadPolicyArtifact(learning.active.artifact as PlanArtifact);
    const planned = runPlanJob(learning, policy);
    policy.dispose();
    expect(packPlan(planned)).not.toBeNull();
    expect(JSON.stringify(await pool.plan(learning))).toBe(JSON.stringify(planned));
    const served = await pool.plan(policyJob("m1", artifact));
    expect(served.some((r) => r.source === "approved" && r.model_id === "m1")).toBe(true);
    expect(served.some((r) => r.date > "2026-01-18" && r.source === "rule")).toBe(true);
  }, 60_000);

  it("runs the forward passes in its threads and deserializes an artifact once per thread", async () => {
    const mine = policyActivity();
    const solo = createPlanPool({ size: 1 });
    try {
      for (let i = 0; i < 3; i++) await solo.plan(policyJob("m1", artifact));
      const [thread, ...others] = solo.stats();
      expect(others).toEqual([]);
      expect(thread?.threadId).not.toBe(threadId);
      expect(thread?.planned).toBe(3);
      expect(thread?.activity.built).toBe(1);
      expect(thread?.activity.forwardPasses).toBeGreaterThanOrEqual(3 * 14);
      // None of it in this thread.
      expect(policyActivity().forwardPasses).toBe(mine.forwardPasses);
    } finally {
      await solo.close();
    }
  }, 60_000);

  it("keeps a bounded cache per thread and rebuilds an artifact it dropped", async () => {
    const small = createPlanPool({ size: 1, policyCacheSize: 1 });
    try {
      const a = await small.plan(policyJob("a", artifact));
      await small.plan(policyJob("b", artifact));
      expect(await small.plan(policyJob("a", artifact))).toEqual(a);
      expect(small.stats()[0]?.activity.built).toBe(3);
    } finally {
      await small.close();
    }
  }, 60_000);

  it("rejects an artifact the thread cannot load with the engine's typed error and its code", async () => {
    const broken = {
      ...policyJob("broken", artifact),
      active: {
        source: "approved" as const,
        modelId: "broken",
        artifact: {
          key: "broken:short",
          manifest: artifact.manifest,
          weights: artifact.weights.subarray(0, 64),
        },
      },
    };
    const solo = createPlanPool({ size: 1 });
    try {
      // Twice on one thread: the second time the pool sends the key alone, the thread (which kept nothing) asks
      // for the bytes again, and fails the same way; the thread then plans on.
      for (let i = 0; i < 2; i++) {
        const error = await solo.plan(broken).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(EngineError);
        expect((error as EngineError).code).toBe("artifact_invalid");
      }
      expect(await solo.plan(ruleJob(5))).toEqual(await inThisThread(ruleJob(5)));
      expect(solo.stats()[0]?.planned).toBe(1);
    } finally {
      await solo.close();
    }
  });

  it("fails a job that cannot be sent to a thread, and plans the next", async () => {
    const solo = createPlanPool({ size: 1 });
    try {
      const unsendable = { ...ruleJob(), extra: () => 1 } as ReturnType<typeof ruleJob>;
      const error = await solo.plan(unsendable).catch((e: unknown) => e);
      expect((error as EngineError).code).toBe("plan_failed");
      expect((error as EngineError).message).toMatch(/cannot be sent to a thread/);
      expect(await solo.plan(ruleJob(5))).toEqual(await inThisThread(ruleJob(5)));
    } finally {
      await solo.close();
    }
  });

  it("fails the plan of a thread that dies with a clear error and replaces the thread", async () => {
    const crashing = startPlanPool(
      { size: 1 },
      { entry: new URL("./test-support/exiting-plan-thread.ts", import.meta.url) },
    );
    try {
      await crashing.plan(ruleJob());
      const before = crashing.stats()[0]?.threadId;
      const error = await crashing
        .plan({ ...ruleJob(), today: EXIT_DATE, startDate: EXIT_DATE })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).code).toBe("plan_thread_exited");
      expect((error as EngineError).message).toMatch(/exited with code 7 while planning/);
      expect(await crashing.plan(ruleJob(5))).toEqual(await inThisThread(ruleJob(5)));
      const after = crashing.stats();
      expect(after).toHaveLength(1);
      expect(after[0]?.threadId).not.toBe(before);
    } finally {
      await crashing.close();
    }
  }, 60_000);

  it("cancels a waiting plan and ends the thread of a large running one when their signal aborts", async () => {
    const pool = startPlanPool(
      // Every job here counts as large: 3 products x 20 days.
      { size: 1, endThreadFromPrices: 60 },
      { entry: new URL("./test-support/exiting-plan-thread.ts", import.meta.url) },
    );
    try {
      await pool.plan(ruleJob(5));
      const [before] = pool.stats();
      const hanging = new AbortController();
      const waiting = new AbortController();
      const running = pool
        .plan({ ...ruleJob(), today: HANG_DATE, startDate: HANG_DATE }, { signal: hanging.signal })
        .catch((e: unknown) => e);
      const queued = pool.plan(ruleJob(5), { signal: waiting.signal }).catch((e: unknown) => e);
      waiting.abort(new Error("nobody waits for this one"));
      expect(((await queued) as Error).message).toBe("nobody waits for this one");
      // The thread is busy for ever: only ending it frees the pool for the next plan.
      hanging.abort(new Error("nor for this one"));
      expect(((await running) as Error).message).toBe("nor for this one");
      expect(await pool.plan(ruleJob(5))).toEqual(await inThisThread(ruleJob(5)));
      expect(pool.stats().map((t) => t.threadId)).not.toContain(before?.threadId);
      expect(pool.stats()).toHaveLength(1);
      // A signal aborted before the plan is asked for plans nothing.
      const gone = AbortSignal.abort(new Error("already gone"));
      expect(
        ((await pool.plan(ruleJob(5), { signal: gone }).catch((e: unknown) => e)) as Error).message,
      ).toBe("already gone");
      expect(pool.stats()[0]?.planned).toBe(1);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("lets a small cancelled plan run to its end on its thread, and drops its answer", async () => {
    const solo = createPlanPool({ size: 1 });
    try {
      await solo.plan(ruleJob(5));
      const [before] = solo.stats();
      const client = new AbortController();
      // 3 products x 5 days, far below the default: the thread is kept.
      const cancelled = solo.plan(ruleJob(5), { signal: client.signal }).catch((e: unknown) => e);
      client.abort(new Error("gone"));
      expect(((await cancelled) as Error).message).toBe("gone");
      // Sent after it, this plan waits for it on the one thread, which then plans both.
      expect(await solo.plan(ruleJob(5))).toEqual(await inThisThread(ruleJob(5)));
      expect(solo.stats()).toEqual([expect.objectContaining({ threadId: before?.threadId, planned: 3 })]);
    } finally {
      await solo.close();
    }
  }, 60_000);

  it("takes waiting plans round-robin between queues: one queue's many plans do not hold another's", async () => {
    const solo = createPlanPool({ size: 1 });
    try {
      const done: string[] = [];
      const plan = (name: string, queue: string, days: number) =>
        solo.plan(ruleJob(days), queue === "" ? {} : { queue }).then(() => done.push(name));
      // A's first plan takes the one thread; three more of A's and one of B's wait behind it.
      const all = [
        plan("a1", "a", 60),
        plan("a2", "a", 60),
        plan("a3", "a", 60),
        plan("a4", "a", 60),
        plan("b1", "b", 5),
      ];
      await Promise.all(all);
      expect(done).toEqual(["a1", "b1", "a2", "a3", "a4"]);
      // Without a queue, every plan shares one: in order.
      done.length = 0;
      await Promise.all([plan("x1", "", 5), plan("x2", "", 5)]);
      expect(done).toEqual(["x1", "x2"]);
    } finally {
      await solo.close();
    }
  }, 60_000);

  it("fails running and later plans once closed, and closes twice", async () => {
    const closing = createPlanPool({ size: 1 });
    const running = closing.plan(policyJob("m1", artifact)).catch((e: unknown) => e);
    await closing.close();
    await closing.close();
    expect(((await running) as EngineError).code).toBe("plan_pool_closed");
    const later = await closing.plan(ruleJob()).catch((e: unknown) => e);
    expect((later as EngineError).code).toBe("plan_pool_closed");
    expect(closing.stats()).toEqual([]);
  });

  it("does not keep a process alive once its plans are answered", async () => {
    const script = join(import.meta.dirname, "test-support/idle-pool-exit.ts");
    const tsx = join(import.meta.dirname, "../../../../node_modules/.bin/tsx");
    const { stdout } = await promisify(execFile)(tsx, [script], { timeout: 60_000 });
    expect(stdout).toMatch(/^planned [1-9]\d*\n$/);
  }, 70_000);

  it("refuses a pool without threads", () => {
    expect(() => createPlanPool({ size: 0 })).toThrow(RangeError);
  });
});
