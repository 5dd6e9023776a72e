import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import { rulePolicy } from "../rule/rule-policy.js";
import type { RuleParams } from "../rule/rule-price.js";
import { trainPolicy } from "./fitted-q.js";
import type { RlPolicy } from "./rl-policy.js";
import {
  plausibleModels,
  policyMarginsUnderModels,
  ruleMarginsUnderModels,
  ruleWorstMargin,
  SAFETY_Z,
  safePolicyImprovement,
} from "./safe-improvement.js";
import { problemFromFitted, twoProductInput } from "./test-support/two-product-fit.js";
import type { TrainingInput } from "./training-input.js";

let input: TrainingInput;
let rules: Map<string, RuleParams>;
let trained: RlPolicy;

beforeAll(async () => {
  ({ input, rules } = twoProductInput());
  trained = await trainPolicy(input);
});

afterAll(() => trained?.dispose());

describe("safe policy improvement over the rule", () => {
  it("ranges over the fit's own band: elasticity -/+ z se (kept >= 0) and base rate -/+ z se", () => {
    const models = plausibleModels({ referencePrice: 10, elasticity: 1, elasticitySe: 0.8, logRateSe: 0.1 });
    expect(models.map((m) => m.elasticity)).toEqual([1, 0, 1 + SAFETY_Z * 0.8, 1, 1]);
    expect(models[3]!.rateFactor).toBeCloseTo(Math.exp(-SAFETY_Z * 0.1));
    expect(
      plausibleModels({ referencePrice: 10, elasticity: 2, elasticitySe: 0, logRateSe: 0 }),
    ).toHaveLength(1);
  });

  it("keeps the rule for a constant-price product and the learned policy for a richly varied one", () => {
    const { policy, report, margins } = safePolicyImprovement(trained, input);
    try {
      const flat = report.products.find((p) => p.productId === "flat")!;
      const rich = report.products.find((p) => p.productId === "rich")!;
      expect(flat.decision).toBe("rule");
      expect(flat.rlWorstMargin).toBeLessThanOrEqual(flat.ruleWorstMargin!);
      expect(flat.worstCaseGain).toBeLessThanOrEqual(0);
      expect(rich.decision).toBe("rl");
      expect(rich.rlWorstMargin).toBeGreaterThan(rich.ruleWorstMargin!);
      expect(rich.rlWorstMargin).toBeLessThanOrEqual(rich.rlMargin);
      expect(report).toMatchObject({ z: SAFETY_Z, productsKeptRl: 1, productsOnRule: 1 });
      expect(policy.usesRule("flat")).toBe(true);
      expect(policy.usesRule("rich")).toBe(false);
      // The fallback prices exactly like the rule; the kept product exactly like the trained network.
      const flatProblem = problemFromFitted(policy, "flat");
      const ruleValue = evaluatePolicy(flatProblem, rulePolicy(flatProblem, rules.get("flat")!)).value;
      expect(evaluatePolicy(flatProblem, policy.productPolicy("flat")).value).toBeCloseTo(ruleValue, 9);
      expect(margins.policy).toBeCloseTo(ruleValue + rich.rlMargin, 6);
      for (let day = 0; day < 14; day++) {
        expect(policy.productPolicy("rich")(day, Infinity, -1)).toBe(
          trained.productPolicy("rich")(day, Infinity, -1),
        );
      }
    } finally {
      policy.dispose();
    }
  });

  it("stops evaluating a policy bound for the rule at the first model where it earns no more than the rule's worst", () => {
    for (const id of ["flat", "rich"]) {
      const product = input.products.find((p) => p.setup.productId === id)!;
      const u = product.demandUncertainty;
      const worst = ruleWorstMargin(
        ruleMarginsUnderModels({ ...product, rates: Float32Array.from(product.rates) }),
      )!;
      const all = policyMarginsUnderModels(trained, id, u);
      const early = policyMarginsUnderModels(trained, id, u, SAFETY_Z, worst);
      expect(all.every((v) => v !== null)).toBe(true);
      // Whatever was evaluated is the full evaluation's figure, and the fitted model's always is.
      expect(early.every((v, k) => v === null || v === all[k])).toBe(true);
      expect(early[0]).toBe(all[0]);
      const bound = all.some((v) => v !== null && v <= worst);
      expect(early.some((v) => v !== null && v <= worst)).toBe(bound);
      if (!bound) expect(early).toEqual(all);
      expect(bound).toBe(id === "flat");
    }
  });
});
