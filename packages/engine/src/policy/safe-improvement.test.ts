import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import { rulePolicy } from "../rule/rule-policy.js";
import type { RuleParams } from "../rule/rule-price.js";
import { trainPolicy } from "./fitted-q.js";
import type { RlPolicy } from "./rl-policy.js";
import { plausibleModels, SAFETY_Z, safePolicyImprovement } from "./safe-improvement.js";
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
});
