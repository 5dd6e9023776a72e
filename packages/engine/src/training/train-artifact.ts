import { type PolicyArtifact, serializeArtifact } from "../artifact/policy-artifact.js";
import { type TrainOptions, trainingThreads, trainPolicy } from "../policy/fitted-q.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import {
  type PrecomputedMargins,
  policyMarginsUnderModels,
  SAFETY_Z,
  safePolicyImprovement,
} from "../policy/safe-improvement.js";
import {
  type TrainingInput,
  type TrainingInputInput,
  TrainingInputSchema,
} from "../policy/training-input.js";
import type { RuleParams } from "../rule/rule-price.js";
import { type SafetyThread, startSafetyThread } from "./safety-in-worker.js";

/**
 * The safety check's margins with a second thread: the rule's, computed there while the policy trained, and the
 * learned policy's, every other product there and the rest here (alternating, since products differ in cost).
 */
async function marginsInTwoThreads(
  trained: RlPolicy,
  input: TrainingInput,
  thread: SafetyThread,
): Promise<PrecomputedMargins> {
  const ids = trained.products.map((m) => m.setup.productId);
  const theirs = thread.policyMargins(
    trained.data,
    ids.filter((_, i) => i % 2 === 1),
  );
  // Rejections are awaited below; one that arrives while this thread computes must not count as unhandled.
  theirs.catch(() => undefined);
  const byId = new Map(input.products.map((p) => [p.setup.productId, p]));
  const mine = new Map(
    ids
      .filter((_, i) => i % 2 === 0)
      .map((id) => [id, policyMarginsUnderModels(trained, id, byId.get(id)?.demandUncertainty)] as const),
  );
  const [rule, other] = await Promise.all([thread.ruleMargins, theirs]);
  return { rule, policy: new Map([...mine, ...other]) };
}

/**
 * Trains a policy, keeps it per product only where its worst-case margin over the fit's plausible demand
 * models beats the rule's (`safePolicyImprovement`; elsewhere the artifact prices by the rule), measures it
 * against the rule exactly under the fitted model, and returns it as an artifact (what the worker thread sends
 * back). With two threads (`trainingThreads`), the check's exact evaluations run in a second one alongside
 * (`startSafetyThread`): the same margins, most of them off the training's critical path. The policies' tensors are released before returning.
 */
export async function trainArtifact(
  rawInput: TrainingInputInput,
  options: TrainOptions = {},
): Promise<PolicyArtifact> {
  const input = TrainingInputSchema.parse(rawInput);
  const thread =
    trainingThreads(options, input.products.length) > 1 ? startSafetyThread(input, SAFETY_Z) : null;
  let trained: RlPolicy | undefined;
  let safe: ReturnType<typeof safePolicyImprovement> | undefined;
  try {
    trained = await trainPolicy(input, options);
    const margins = thread === null ? {} : await marginsInTwoThreads(trained, input, thread);
    safe = safePolicyImprovement(trained, input, SAFETY_Z, margins);
    const rules = new Map<string, RuleParams>();
    for (const p of input.products) if (p.ruleParams) rules.set(p.setup.productId, p.ruleParams);
    return serializeArtifact(safe.policy, {
      margins: safe.margins,
      safety: safe.report,
      ruleParams: rules,
    });
  } finally {
    thread?.terminate();
    safe?.policy.dispose();
    trained?.dispose();
  }
}
