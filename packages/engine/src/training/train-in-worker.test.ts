import { describe, expect, it } from "vitest";
import { loadPolicyArtifact } from "../artifact/policy-artifact.js";
import type { TrainingProgress } from "../policy/fitted-q.js";
import { trainingDataFromProblems } from "../policy/training-input.js";
import { buildProblem } from "../problem/problem-setup.js";
import { trainInWorker } from "./train-in-worker.js";

const problem = buildProblem(
  {
    productId: "x",
    startDate: "2026-01-05",
    horizon: 14,
    prices: [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    minPrice: 5,
    maxPrice: 15,
    shutoff: false,
    unitCost: 3,
    stock: 40,
    maxDailyChange: null,
    initialPrice: null,
    distribution: "poisson",
  },
  (_, p) => 5 * (p / 10) ** -2,
);
const input = {
  companyId: "c",
  products: trainingDataFromProblems([problem], { x: 10 }).map((p) => ({
    ...p,
    ruleParams: { basePrice: 10, weekdayIndex: [1, 1, 1, 1, 1, 1, 1], dailyUnits: 5 },
  })),
  config: { seed: 3, stepsPerDay: 20, finalSteps: 100 },
};

describe("trainInWorker", () => {
  it("trains off the event loop, reports progress and returns a loadable artifact with metrics", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const progress: TrainingProgress[] = [];
    const started = Date.now();
    const artifact = await trainInWorker(input, { onProgress: (p) => progress.push(p) });
    clearInterval(timer);
    // The loop kept ticking while training ran in the other thread.
    expect(ticks).toBeGreaterThan((Date.now() - started) / 5 / 4);
    expect(progress.length).toBeGreaterThan(14);
    expect(progress.at(-1)!.step).toBe(14 * 20 + 100);
    const m = artifact.manifest.metrics;
    expect(m.policyMargin).toBeGreaterThan(0);
    expect(m.ruleMargin).toBeGreaterThan(0);
    expect(m.upliftPct).toBeCloseTo(100 * (m.policyMargin! / m.ruleMargin! - 1), 9);
    expect(m.episodes).toBeGreaterThan(0);
    const policy = await loadPolicyArtifact(artifact);
    const decide = policy.decider(policy.productIndex("x"));
    expect(Array.from({ length: 14 }, (_, day) => decide(day, 40, null)).every((i) => i >= 0)).toBe(true);
    policy.dispose();
  });

  it("aborts: the promise rejects and the thread stops", async () => {
    const controller = new AbortController();
    const run = trainInWorker(input, {
      signal: controller.signal,
      onProgress: (p) => p.day < 12 && controller.abort(),
    });
    await expect(run).rejects.toThrow(/abort/i);
  });

  it("rejects bad input before starting a thread", () => {
    expect(() => trainInWorker({ ...input, companyId: "" })).toThrow();
  });
});
