import { describe, expect, it } from "vitest";
import { loadPolicyArtifact } from "../artifact/policy-artifact.js";
import { EngineError } from "../base/engine-error.js";
import { generateMarket } from "../market/generate-market.js";
import type { CompanyTrainingData } from "../policy/company-training.js";
import type { TrainingProgress } from "../policy/fitted-q.js";
import { trainInWorker } from "./train-in-worker.js";

// A catalogue product and its sales history, as a server loads them: the worker fits demand to the history itself.
const market = generateMarket({
  name: "worker",
  seed: 3,
  start_date: "2026-01-05",
  horizon: 14,
  history: { days: 120, price_variation: 0.15, change_every_days: 7 },
  products: [
    {
      product_id: "x",
      reference_price: 10,
      unit_cost: 3,
      stock: 40,
      demand: { family: "constant_elasticity", base_rate: 5, elasticity: 2 },
    },
  ],
});
const data: CompanyTrainingData = {
  companyId: "c",
  products: market.products.map((p) => ({ setup: p.setup, basePrice: p.referencePrice })),
  history: market.history,
  minHistoryDays: 28,
  config: { seed: 3, stepsPerDay: 20, finalSteps: 100 },
};

describe("trainInWorker", () => {
  it("fits and trains off the event loop, reports progress and returns a loadable artifact with metrics", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const progress: TrainingProgress[] = [];
    const started = Date.now();
    const artifact = await trainInWorker(data, { onProgress: (p) => progress.push(p) });
    clearInterval(timer);
    // The loop kept ticking while training ran in the other thread.
    expect(ticks).toBeGreaterThan((Date.now() - started) / 5 / 4);
    expect(progress.length).toBeGreaterThan(14);
    expect(progress.at(-1)?.step).toBe(14 * 20 + 100);
    const m = artifact.manifest.metrics;
    expect(m.policyMargin).toBeGreaterThan(0);
    expect(m.ruleMargin).toBeGreaterThan(0);
    expect(m.upliftPct).toBeCloseTo(100 * ((m.policyMargin ?? 0) / (m.ruleMargin ?? 1) - 1), 9);
    expect(m.episodes).toBeGreaterThan(0);
    // The demand model fitted in the thread is kept in the manifest.
    expect(artifact.manifest.demandModel).toMatchObject({ family: "constant_elasticity_poisson" });
    const policy = await loadPolicyArtifact(artifact);
    const decide = policy.decider(policy.productIndex("x"));
    expect(Array.from({ length: 14 }, (_, day) => decide(day, 40, null)).every((i) => i >= 0)).toBe(true);
    policy.dispose();
  });

  it("throttles progress but always reports the last step", async () => {
    const progress: TrainingProgress[] = [];
    await trainInWorker(
      { ...data, config: { seed: 3, stepsPerDay: 5, finalSteps: 20 } },
      { onProgress: (p) => progress.push(p), progressEveryMs: 60_000 },
    );
    // The first report passes the throttle, the rest wait for 60 s except the last.
    expect(progress).toHaveLength(2);
    expect(progress.at(-1)?.step).toBe(14 * 5 + 20);
  });

  it("aborts: the promise rejects and the thread stops", async () => {
    const controller = new AbortController();
    const run = trainInWorker(data, {
      signal: controller.signal,
      onProgress: (p) => p.day < 12 && controller.abort(),
    });
    await expect(run).rejects.toThrow(/abort/i);
  });

  it("refuses thin history before starting a thread", () => {
    const thin = { ...data, history: data.history.slice(-10) };
    expect(() => trainInWorker(thin)).toThrow(EngineError);
    expect(() => trainInWorker(thin)).toThrow(/10 days of sales history/);
    expect(() => trainInWorker({ ...data, products: [] })).toThrow(/no products/);
  });

  it("fails with insufficient_history from the thread when no product has usable history", async () => {
    const unsold = { ...data, history: data.history.map((r) => ({ ...r, product_id: "other" })) };
    await expect(trainInWorker(unsold)).rejects.toMatchObject({ code: "insufficient_history" });
  });
});
