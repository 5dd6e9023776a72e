import { type PolicyArtifact, serializeArtifact } from "../artifact/policy-artifact.js";
import { type TrainOptions, trainingThreads, trainPolicyWith } from "../policy/fitted-q.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import {
  type PolicyMargins,
  type PrecomputedMargins,
  policyMarginsUnderModels,
  ruleWorstMargin,
  SAFETY_Z,
  safePolicyImprovement,
} from "../policy/safe-improvement.js";
import {
  type SpawnedTargetsThread,
  spawnTargetsThread,
  type TargetsThread,
} from "../policy/targets-in-worker.js";
import {
  type TrainingInput,
  type TrainingInputInput,
  TrainingInputSchema,
} from "../policy/training-input.js";
import type { RuleParams } from "../rule/rule-price.js";

/**
 * The safety check's margins with the training's second thread: the rule's, computed there between the backward
 * pass's days, and the learned policy's, each product where a thread is free for it (products differ in cost: with
 * every other product there, that thread idled a tenth of the phase on bench:train's company).
 */
async function marginsInTwoThreads(
  trained: RlPolicy,
  input: TrainingInput,
  thread: TargetsThread,
): Promise<PrecomputedMargins> {
  const ids = trained.products.map((m) => m.setup.productId);
  const next = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const theirs = thread.policyMargins(trained.data, ids, next);
  // Rejections are awaited below; one that arrives while this thread computes must not count as unhandled.
  theirs.catch(() => undefined);
  const byId = new Map(input.products.map((p) => [p.setup.productId, p]));
  // Done a third of the way into the backward pass: its worst cases let the learned policy's evaluations stop early.
  const rule = await thread.ruleMargins;
  const mine = new Map<string, PolicyMargins>();
  for (let k = Atomics.add(next, 0, 1); k < ids.length; k = Atomics.add(next, 0, 1)) {
    const id = ids[k] as string;
    const worst = ruleWorstMargin(rule.get(id) ?? null);
    mine.set(id, policyMarginsUnderModels(trained, id, byId.get(id)?.demandUncertainty, SAFETY_Z, worst));
  }
  return { rule, policy: new Map([...mine, ...(await theirs)]) };
}

/**
 * Trains a policy, keeps it per product only where its worst-case margin over the fit's plausible demand
 * models beats the rule's (`safePolicyImprovement`; elsewhere the artifact prices by the rule), measures it
 * against the rule exactly under the fitted model, and returns it as an artifact (what the worker thread sends
 * back). With two threads (`trainingThreads`), the second also does most of the check's exact evaluations, the
 * same margins, off the training's critical path. The policies' tensors are released before returning.
 * `spawned` is a second thread the caller spawned early (`spawnTargetsThread`), so that its start-up overlaps the
 * caller's work before (the demand fit); it is used when this training takes two threads, and terminated either way.
 */
export async function trainArtifact(
  rawInput: TrainingInputInput,
  options: TrainOptions = {},
  spawned: SpawnedTargetsThread | null = null,
): Promise<PolicyArtifact> {
  let input: TrainingInput;
  try {
    input = TrainingInputSchema.parse(rawInput);
  } catch (error) {
    spawned?.terminate();
    throw error;
  }
  let thread: TargetsThread | null = null;
  if (trainingThreads(options, input.products.length) > 1) {
    thread = (spawned ?? spawnTargetsThread()).start(input, input.config.hidden, SAFETY_Z);
  } else {
    spawned?.terminate();
  }
  let trained: RlPolicy | undefined;
  let safe: ReturnType<typeof safePolicyImprovement> | undefined;
  try {
    trained = await trainPolicyWith(input, options, thread);
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
