import { type PricingProblem, type RlPolicy, trainingDataFromProblems, trainPolicy } from "@pricing/engine";
import type { PolicyRunner, RunnerContext, RunnerResult } from "./policy-runner.js";

async function trainOn(
  context: RunnerContext,
  problems: readonly PricingProblem[],
): Promise<{ policy: RlPolicy; result: RunnerResult }> {
  const refs = Object.fromEntries(
    context.products.map((p) => [p.product.productId, p.product.referencePrice]),
  );
  const policy = await trainPolicy({
    companyId: context.scenario.name,
    products: trainingDataFromProblems(problems, refs),
    // --quick keeps the whole suite under a minute; the full run uses the engine's defaults.
    config: context.quick ? { seed: context.seed, stepsPerDay: 12, finalSteps: 300 } : { seed: context.seed },
  });
  const t = policy.data.training;
  return {
    policy,
    result: {
      policies: new Map(problems.map((p) => [p.productId, policy.productPolicy(p.productId)])),
      trainingSeconds: t.seconds,
      extra: { episodes: t.episodes, loss: t.finalLoss.toExponential(2), backend: t.backend },
    },
  };
}

/** The RL policy learned in the simulator built from the FITTED demand (what a deployment can do). */
export const rlRunner: PolicyRunner = {
  name: "rl",
  run: async (context) =>
    (
      await trainOn(
        context,
        context.products.map((p) => p.estimate),
      )
    ).result,
};

/** Diagnostic: the same learner in the TRUE simulator, isolating the learner's error from the fit's. */
export const rlTrueRunner: PolicyRunner = {
  name: "rl_true",
  run: async (context) =>
    (
      await trainOn(
        context,
        context.products.map((p) => p.truth),
      )
    ).result,
};

export const rlRunners: PolicyRunner[] = [rlRunner, rlTrueRunner];
