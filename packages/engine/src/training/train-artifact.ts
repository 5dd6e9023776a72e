import { type PolicyArtifact, serializeArtifact } from "../artifact/policy-artifact.js";
import { type TrainOptions, trainPolicy } from "../policy/fitted-q.js";
import { safePolicyImprovement } from "../policy/safe-improvement.js";
import { type TrainingInputInput, TrainingInputSchema } from "../policy/training-input.js";
import type { RuleParams } from "../rule/rule-price.js";

/**
 * Trains a policy, keeps it per product only where its worst-case margin over the fit's plausible demand
 * models beats the rule's (`safePolicyImprovement`; elsewhere the artifact prices by the rule), measures it
 * against the rule exactly under the fitted model, and returns it as an artifact (what the worker thread sends
 * back). The policies' tensors are released before returning.
 */
export async function trainArtifact(
  rawInput: TrainingInputInput,
  options: TrainOptions = {},
): Promise<PolicyArtifact> {
  const input = TrainingInputSchema.parse(rawInput);
  const trained = await trainPolicy(input, options);
  let safe: ReturnType<typeof safePolicyImprovement> | undefined;
  try {
    safe = safePolicyImprovement(trained, input);
    const rules = new Map<string, RuleParams>();
    for (const p of input.products) if (p.ruleParams) rules.set(p.setup.productId, p.ruleParams);
    return serializeArtifact(safe.policy, {
      margins: safe.margins,
      safety: safe.report,
      ruleParams: rules,
    });
  } finally {
    safe?.policy.dispose();
    trained.dispose();
  }
}
