import { describe, expect, it } from "vitest";
import { initTfBackend, tensorCount } from "../backend/tf-backend.js";
import { bestConstantPolicy } from "../optimum/best-constant.js";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import { solveOptimum } from "../optimum/solve-optimum.js";
import type { PricingProblem } from "../problem/pricing-problem.js";
import { buildProblem, type ProblemSetup } from "../problem/problem-setup.js";
import { type TrainingProgress, trainPolicy } from "./fitted-q.js";
import { trainingDataFromProblems } from "./training-input.js";

const prices = Array.from({ length: 21 }, (_, i) => Math.round((5 + i * 0.5) * 100) / 100);

function problem(overrides: Partial<ProblemSetup> = {}, rate = 5, elasticity = 2.2): PricingProblem {
  const setup: ProblemSetup = {
    productId: "sku",
    startDate: "2026-01-05",
    horizon: 21,
    prices,
    minPrice: 5,
    maxPrice: 15,
    shutoff: false,
    unitCost: 3,
    stock: 60,
    maxDailyChange: null,
    initialPrice: null,
    distribution: "poisson",
    overdispersion: 0,
    ...overrides,
  };
  // Saturdays sell 40 % more: the policy has to learn a weekly rhythm as well as the stock trade-off.
  return buildProblem(setup, (day, price) => rate * (price / 10) ** -elasticity * (day % 7 === 5 ? 1.4 : 1));
}

const config = { seed: 7, stepsPerDay: 30, finalSteps: 300 };
const thorough = { seed: 7, stepsPerDay: 60, finalSteps: 1200 };

describe("trainPolicy (fitted Q-iteration)", () => {
  it("learns a tight-stock policy close to the exact optimum", async () => {
    const p = problem();
    const policy = await trainPolicy({
      companyId: "c",
      products: trainingDataFromProblems([p], { sku: 10 }),
      config: thorough,
    });
    const rl = evaluatePolicy(p, policy.productPolicy("sku"));
    const optimum = solveOptimum(p).value;
    expect(rl.violations).toBe(0);
    expect(rl.value / optimum).toBeGreaterThan(0.99);
    // A single well-chosen price leaves money on the table under tight stock; the learned policy must not.
    expect(rl.value).toBeGreaterThan(bestConstantPolicy(p).value);
    policy.dispose();
  });

  it("respects a max daily change through action masking", async () => {
    const p = problem({ maxDailyChange: 0.1, initialPrice: 8 });
    const policy = await trainPolicy({
      companyId: "c",
      products: trainingDataFromProblems([p], { sku: 10 }),
      config,
    });
    const rl = evaluatePolicy(p, policy.productPolicy("sku"));
    expect(rl.violations).toBe(0);
    expect(rl.value / solveOptimum(p).value).toBeGreaterThan(0.95);
    policy.dispose();
  });

  it("is deterministic for a seed and reports progress", async () => {
    const input = { companyId: "c", products: trainingDataFromProblems([problem({ horizon: 7 })]), config };
    const seen: TrainingProgress[] = [];
    const a = await trainPolicy(input, { onProgress: (x) => seen.push(x) });
    const b = await trainPolicy(input);
    expect(a.data.weights).toEqual(b.data.weights);
    const c = await trainPolicy({ ...input, config: { ...config, seed: 8 } });
    expect(c.data.weights).not.toEqual(a.data.weights);
    expect(seen.map((x) => x.day).slice(0, 7)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(seen.at(-1)!.step).toBe(7 * config.stepsPerDay + config.finalSteps);
    expect(seen.every((x) => Number.isFinite(x.loss) && x.estimatedValue > 0)).toBe(true);
    for (const policy of [a, b, c]) policy.dispose();
  });

  it("stops on an aborted signal, releasing its tensors", async () => {
    await initTfBackend();
    const before = tensorCount();
    const controller = new AbortController();
    const run = trainPolicy(
      { companyId: "c", products: trainingDataFromProblems([problem()]), config },
      { signal: controller.signal, onProgress: (x) => x.day === 15 && controller.abort() },
    );
    await expect(run).rejects.toThrow(/abort/i);
    expect(tensorCount()).toBe(before);
  });

  it("rejects inconsistent input with a clear error", async () => {
    const [data] = trainingDataFromProblems([problem()]);
    await expect(
      trainPolicy({ companyId: "c", products: [{ ...data!, rates: data!.rates.slice(1) }] }),
    ).rejects.toThrow(/rates has/);
    await expect(trainPolicy({ companyId: "c", products: [] })).rejects.toThrow();
  });

  it("trains the same policy bit for bit with the targets split over two threads", async () => {
    const products = trainingDataFromProblems([
      problem({ productId: "a" }),
      problem({ productId: "b", stock: 25 }, 3, 1.6),
      problem({ productId: "c", stock: null }),
    ]);
    const quick = { seed: 3, stepsPerDay: 5, finalSteps: 40 };
    const one = await trainPolicy({ companyId: "c", products, config: quick }, { threads: 1 });
    const two = await trainPolicy({ companyId: "c", products, config: quick }, { threads: 2 });
    try {
      expect(two.data.weights).toEqual(one.data.weights);
      expect(two.data.training.estimatedValue).toBe(one.data.training.estimatedValue);
    } finally {
      one.dispose();
      two.dispose();
    }
  });
});
