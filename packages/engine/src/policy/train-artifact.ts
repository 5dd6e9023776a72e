import { type PolicyArtifact, serializeArtifact } from "../artifact/policy-artifact.js";
import type { RuleParams } from "../rule/rule-price.js";
import { type TrainOptions, trainPolicy } from "./fitted-q.js";
import { marginsUnderModel } from "./policy-metrics.js";
import { type TrainingInputInput, TrainingInputSchema } from "./training-input.js";

export interface TrainArtifactOptions extends TrainOptions {
  readonly modelId?: string;
}

/**
 * Trains a policy, measures it against the rule exactly under the fitted model, and returns it as an artifact
 * (what the worker thread sends back). The policy's tensors are released before returning.
 */
export async function trainArtifact(
  rawInput: TrainingInputInput,
  options: TrainArtifactOptions = {},
): Promise<PolicyArtifact> {
  const input = TrainingInputSchema.parse(rawInput);
  const policy = await trainPolicy(input, options);
  try {
    const rules = new Map<string, RuleParams>();
    for (const p of input.products) if (p.ruleParams) rules.set(p.setup.productId, p.ruleParams);
    const margins = marginsUnderModel(policy, rules);
    return serializeArtifact(policy, {
      margins,
      ...(options.modelId === undefined ? {} : { modelId: options.modelId }),
    });
  } finally {
    policy.dispose();
  }
}
