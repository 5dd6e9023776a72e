import {
  capToExploration,
  demandUncertaintyOf,
  type Exploration,
  type PricingProblem,
  planPolicy,
  type RlPolicy,
  roundToMinor,
  safePolicyImprovement,
  trainingDataFromProblems,
  trainPolicy,
} from "@pricing/engine";
import type { PolicyRunner, RunnerContext, RunnerProduct, RunnerResult } from "./policy-runner.js";

/**
 * Trains in `problems`; with `safe`, then keeps the learned policy per product only where it beats the rule under
 * every plausible demand model of the fit (as `trainArtifact` does for a deployment), counted in the seconds.
 */
async function trainOn(
  context: RunnerContext,
  problems: readonly PricingProblem[],
  safe: boolean,
  exploration: Exploration = "free",
): Promise<RunnerResult> {
  const refs = Object.fromEntries(
    context.products.map((p) => [p.product.productId, p.product.referencePrice]),
  );
  const products = trainingDataFromProblems(problems, refs).map((data, i) => {
    const p = context.products[i]!;
    const fitted = context.fit.products.get(p.product.productId);
    if (!safe) return data;
    return {
      ...data,
      ruleParams: { ...p.state.ruleParams, weekdayIndex: [...p.state.ruleParams.weekdayIndex] },
      ...(fitted === undefined ? {} : { demandUncertainty: demandUncertaintyOf(fitted) }),
    };
  });
  const started = performance.now();
  const trained = await trainPolicy({
    companyId: context.scenario.name,
    products,
    // --quick keeps the whole suite under a minute; the full run uses the engine's defaults.
    config: context.quick ? { seed: context.seed, stepsPerDay: 12, finalSteps: 300 } : { seed: context.seed },
  });
  const t = trained.data.training;
  const extra: Record<string, number | string> = {
    episodes: t.episodes,
    loss: t.finalLoss.toExponential(2),
    backend: t.backend,
  };
  let policy: RlPolicy = trained;
  if (safe) {
    const checkStarted = performance.now();
    const checked = safePolicyImprovement(trained, { products });
    trained.dispose();
    policy = checked.policy;
    extra.kept_rl = `${checked.report.productsKeptRl}/${checked.report.products.length}`;
    extra.check_s = ((performance.now() - checkStarted) / 1000).toFixed(2);
  }
  // Evaluated as the API serves it: each day's price is the first day of the plan made that day.
  const active = { source: "latest" as const, modelId: context.scenario.name, policy };
  return {
    policies: new Map(
      context.products.map((p) => {
        // The product's exploration cap over its initial history; no sales join it during the season.
        const days = priceDays(context, p.product.productId);
        const advisor = {
          cap: (state: RunnerProduct["state"], price: number, rule: number) =>
            capToExploration(state, exploration, days, price, rule),
        };
        return [p.product.productId, planPolicy({ state: p.state, problem: p.estimate, active, advisor })];
      }),
    ),
    trainingSeconds: safe ? (performance.now() - started) / 1000 : t.seconds,
    extra,
  };
}

/** Days the product sold at each price (the scenario currency's minor unit) in the scenario's history. */
function priceDays(context: RunnerContext, productId: string): Map<number, number> {
  const days = new Map<number, number>();
  for (const r of context.market.history) {
    if (r.product_id !== productId) continue;
    const price = roundToMinor(r.price, context.market.scenario.currency);
    days.set(price, (days.get(price) ?? 0) + 1);
  }
  return days;
}

/** The RL learner trained in the simulator of `simulator(product)`, one network for the scenario's products. */
function rlRunnerIn(
  name: string,
  simulator: (p: RunnerProduct) => PricingProblem,
  safe: boolean,
  exploration: Exploration = "free",
): PolicyRunner {
  return { name, run: (context) => trainOn(context, context.products.map(simulator), safe, exploration) };
}

/**
 * The RL policy learned in the simulator built from the FITTED demand (what a deployment can do), kept per product
 * only where it confidently beats the rule (safe policy improvement, as in the artifact).
 */
export const rlRunner = rlRunnerIn("rl", (p) => p.estimate, true);

/**
 * The product default: the same policy served with exploration `cautious` (each price capped one grid price beyond
 * the prices its history held for a week), trained once, no learning during the season.
 */
export const rlCautiousRunner = rlRunnerIn("rl_cautious", (p) => p.estimate, true, "cautious");

/** Diagnostic: the same learner in the TRUE simulator, isolating the learner's error from the fit's. */
export const rlTrueRunner = rlRunnerIn("rl_true", (p) => p.truth, false);

export const rlRunners: PolicyRunner[] = [rlRunner, rlCautiousRunner, rlTrueRunner];
