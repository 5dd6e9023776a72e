import { bestConstantPolicy, type ProductPolicy, planPolicy, solveOptimum } from "@pricing/engine";
import type { PolicyRunner, RunnerContext } from "./policy-runner.js";

function perProduct(
  context: RunnerContext,
  build: (p: RunnerContext["products"][number]) => ProductPolicy,
): Map<string, ProductPolicy> {
  return new Map(context.products.map((p) => [p.product.productId, build(p)]));
}

/**
 * The rule fallback (base price x weekday index x stock pacing, from history only) as the API serves it: each
 * day's price is the first day of that day's plan.
 */
export const ruleRunner: PolicyRunner = {
  name: "rule",
  run: (context) => ({
    policies: perProduct(context, (p) =>
      planPolicy({
        state: p.state,
        problem: p.estimate,
        active: { source: "rule", modelId: null, policy: null },
      }),
    ),
  }),
};

/** The best single price according to the fitted model. */
export const bestConstantRunner: PolicyRunner = {
  name: "best_constant",
  run: (context) => ({ policies: perProduct(context, (p) => bestConstantPolicy(p.estimate).policy) }),
};

/** The exact DP solved on the fitted model (then, like every policy, evaluated under the true demand). */
export const dpOnEstimateRunner: PolicyRunner = {
  name: "dp_on_estimate",
  run: (context) => ({ policies: perProduct(context, (p) => solveOptimum(p.estimate).policy) }),
};

export const baselineRunners: PolicyRunner[] = [ruleRunner, bestConstantRunner, dpOnEstimateRunner];
