import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import type { PricingProblem } from "../problem/pricing-problem.js";
import { problemFromRates } from "../problem/problem-setup.js";
import { rulePolicy } from "../rule/rule-policy.js";
import type { RuleParams } from "../rule/rule-price.js";
import type { RlPolicy } from "./rl-policy.js";

/** The simulator a policy was trained in, rebuilt from its own demand tables (the fitted model). */
export function policyProblems(policy: RlPolicy): PricingProblem[] {
  return policy.products.map((m) => problemFromRates(m.setup, m.rates));
}

/**
 * Exact expected margins (currency, summed over products) of the policy and of the rule under the model the
 * policy was trained in; the rule term counts only products with rule parameters (null when none has them).
 */
export function marginsUnderModel(
  policy: RlPolicy,
  ruleParams: ReadonlyMap<string, RuleParams>,
): { policy: number; rule: number | null } {
  let policyMargin = 0;
  let ruleMargin = 0;
  let policyOnRuled = 0;
  for (const problem of policyProblems(policy)) {
    const value = evaluatePolicy(problem, policy.productPolicy(problem.productId)).value;
    policyMargin += value;
    const params = ruleParams.get(problem.productId);
    if (params) {
      ruleMargin += evaluatePolicy(problem, rulePolicy(problem, params)).value;
      policyOnRuled += value;
    }
  }
  return { policy: policyMargin, rule: ruleParams.size === 0 || policyOnRuled === 0 ? null : ruleMargin };
}
