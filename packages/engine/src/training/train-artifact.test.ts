import { describe, expect, it } from "vitest";
import { loadPolicyArtifact } from "../artifact/policy-artifact.js";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import { trainPolicy } from "../policy/fitted-q.js";
import { safePolicyImprovement } from "../policy/safe-improvement.js";
import { spawnTargetsThread } from "../policy/targets-in-worker.js";
import { problemFromFitted, twoProductInput } from "../policy/test-support/two-product-fit.js";
import { rulePolicy } from "../rule/rule-policy.js";
import { trainArtifact } from "./train-artifact.js";

const { input, rules } = twoProductInput();

describe("trainArtifact", () => {
  it("writes the flags and rule parameters into the artifact, and the loaded policy honours them", async () => {
    const artifact = await trainArtifact(input);
    const m = artifact.manifest;
    expect(m.products.map((p) => [p.setup.productId, p.pricedBy])).toEqual([
      ["flat", "rule"],
      ["rich", "rl"],
    ]);
    expect(m.products[0]!.ruleParams?.basePrice).toBe(rules.get("flat")!.basePrice);
    expect(m.metrics.safety?.productsKeptRl).toBe(1);
    expect(m.metrics.safety?.products.map((p) => p.decision)).toEqual(["rule", "rl"]);
    const loaded = await loadPolicyArtifact({
      manifest: JSON.parse(JSON.stringify(m)) as unknown,
      weights: Uint8Array.from(artifact.weights),
    });
    try {
      expect(loaded.usesRule("flat")).toBe(true);
      expect(loaded.usesRule("rich")).toBe(false);
      const flatProblem = problemFromFitted(loaded, "flat");
      const rule = rulePolicy(flatProblem, rules.get("flat")!);
      const decideFlat = loaded.decider(loaded.productIndex("flat"));
      const flatPlan = Array.from({ length: 14 }, (_, day) => decideFlat(day, Infinity, null));
      expect(flatPlan).toEqual(flatPlan.map((_, day) => rule(day, Infinity, -1)));
      const states = loaded.priceStates({
        product: Int32Array.from([0, 0, 1]),
        day: Int32Array.from([0, 5, 5]),
        stock: Float64Array.from([Infinity, Infinity, Infinity]),
        prevPrice: Float64Array.from([Number.NaN, 9, Number.NaN]),
      });
      expect(states[0]).toBe(rule(0, Infinity, -1));
      expect(states[1]).toBe(rule(5, Infinity, -1));
      expect(states[2]).toBe(loaded.productPolicy("rich")(5, Infinity, -1));
      expect(evaluatePolicy(flatProblem, loaded.productPolicy("flat")).value).toBeCloseTo(
        evaluatePolicy(flatProblem, rule).value,
        9,
      );
      // A manifest that flags the rule without its parameters is refused.
      const broken = JSON.parse(JSON.stringify(m)) as { products: { ruleParams?: unknown }[] };
      delete broken.products[0]!.ruleParams;
      await expect(loadPolicyArtifact({ manifest: broken, weights: artifact.weights })).rejects.toMatchObject(
        {
          code: "artifact_invalid",
        },
      );
    } finally {
      loaded.dispose();
    }
  });

  it("checks safety in two threads with the margins one thread computes, bit for bit", async () => {
    const artifact = await trainArtifact(input, { threads: 2 });
    const trained = await trainPolicy(input, { threads: 1 });
    const alone = safePolicyImprovement(trained, input);
    try {
      expect(artifact.manifest.metrics.safety).toEqual(alone.report);
      expect(artifact.manifest.metrics.policyMargin).toBe(alone.margins.policy);
      expect(artifact.manifest.metrics.ruleMargin).toBe(alone.margins.rule);
    } finally {
      alone.policy.dispose();
      trained.dispose();
    }
  });

  it("trains the same artifact with a second thread spawned before the input exists", async () => {
    const early = await trainArtifact(input, { threads: 2 }, spawnTargetsThread());
    const alone = await trainArtifact(input, { threads: 1 });
    expect(early.weights).toEqual(alone.weights);
    expect(early.manifest.metrics.safety).toEqual(alone.manifest.metrics.safety);
    expect(early.manifest.products).toEqual(alone.manifest.products);
  });
});
