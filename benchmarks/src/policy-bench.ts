import {
  evaluatePolicy,
  fitDemand,
  generateMarket,
  lpBound,
  type Market,
  type ProductPolicy,
  problemFromFit,
  problemFromTruth,
  type ScenarioInput,
  solveOptimum,
  trueRate,
} from "@pricing/engine";
import { marketStates } from "./market-states.js";
import type { PolicyRunner, RunnerContext, RunnerProduct } from "./policy-runner.js";

export interface PolicyRow {
  readonly policy: string;
  /** Expected margin under the true demand, summed over products (exact). */
  readonly value: number;
  readonly pctOfOptimum: number;
  /** Value relative to dp_on_estimate (null when that runner is absent). */
  readonly pctOfDpOnEstimate: number | null;
  /** Illegal decisions in reachable states (outside the guardrails/grid or beyond the max daily change). */
  readonly violations: number;
  /** Wall seconds to build the policies (training included). */
  readonly seconds: number;
  readonly trainingSeconds: number;
  readonly extra: Readonly<Record<string, number | string>>;
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly products: number;
  readonly optimum: number;
  /** Fluid LP bound summed over products, when some product has finite stock. */
  readonly lpBound: number | null;
  /** Single product: the fitted and the true elasticity; company: mean over products. */
  readonly fittedElasticity: number;
  readonly trueElasticity: number;
  /** Company: mean |fitted - true| elasticity over products. */
  readonly elasticityMae: number;
  readonly fitSeconds: number;
  readonly optimumSeconds: number;
  readonly rows: readonly PolicyRow[];
  /** Policies by runner name, then product id (for --dump-policy). */
  readonly policies: ReadonlyMap<string, ReadonlyMap<string, ProductPolicy>>;
  readonly market: Market;
  readonly context: RunnerContext;
}

const now = (): number => performance.now() / 1000;

/** Local price elasticity -dln(rate)/dln(price) at the reference price, averaged over weekdays. */
function trueLocalElasticity(product: Market["products"][number]): number {
  const h = 1e-3;
  let sum = 0;
  for (let d = 0; d < 7; d++) {
    const up = trueRate(product.truth, d, -1, product.referencePrice * Math.exp(h));
    const down = trueRate(product.truth, d, -1, product.referencePrice * Math.exp(-h));
    sum += -(Math.log(up) - Math.log(down)) / (2 * h);
  }
  return sum / 7;
}

/** Generates the market, fits demand from its history, solves the optimum and scores every runner exactly. */
export async function runScenario(
  input: ScenarioInput,
  runners: readonly PolicyRunner[],
  options: { quick: boolean },
): Promise<ScenarioResult> {
  const market = generateMarket(input);
  let t0 = now();
  const fit = fitDemand(
    market.history,
    market.products.map((p) => ({ productId: p.productId, referencePrice: p.referencePrice })),
  );
  const fitSeconds = now() - t0;
  const states = marketStates(market);
  const products: RunnerProduct[] = market.products.map((product) => {
    const state = states.get(product.productId);
    if (state === undefined) throw new Error(`no state for ${product.productId}`);
    return {
      product,
      estimate: problemFromFit(fit, product.setup),
      truth: problemFromTruth(product.truth, product.setup),
      state,
    };
  });
  t0 = now();
  let optimum = 0;
  let lp = 0;
  let anyFinite = false;
  for (const p of products) {
    optimum += solveOptimum(p.truth).value;
    if (p.truth.stock !== null) anyFinite = true;
    lp += lpBound(p.truth).value;
  }
  const optimumSeconds = now() - t0;

  let fittedSum = 0;
  let trueSum = 0;
  let absErr = 0;
  for (const p of market.products) {
    const fitted = fit.products.get(p.productId)?.elasticity ?? Number.NaN;
    const truth = trueLocalElasticity(p);
    fittedSum += fitted;
    trueSum += truth;
    absErr += Math.abs(fitted - truth);
  }
  const n = market.products.length;

  const context: RunnerContext = {
    scenario: market.scenario,
    market,
    fit,
    products,
    quick: options.quick,
    seed: market.scenario.seed,
  };
  const policies = new Map<string, ReadonlyMap<string, ProductPolicy>>();
  const raw: Omit<PolicyRow, "pctOfDpOnEstimate">[] = [];
  for (const runner of runners) {
    t0 = now();
    const result = await runner.run(context);
    const seconds = now() - t0;
    let value = 0;
    let violations = 0;
    for (const p of products) {
      const policy = result.policies.get(p.product.productId);
      if (!policy) throw new Error(`runner ${runner.name} gave no policy for ${p.product.productId}`);
      const evaluation = evaluatePolicy(p.truth, policy);
      value += evaluation.value;
      violations += evaluation.violations;
    }
    policies.set(runner.name, result.policies);
    raw.push({
      policy: runner.name,
      value,
      pctOfOptimum: (100 * value) / optimum,
      violations,
      seconds,
      trainingSeconds: result.trainingSeconds ?? 0,
      extra: result.extra ?? {},
    });
  }
  const dp = raw.find((r) => r.policy === "dp_on_estimate");
  const rows = raw.map((r) => ({ ...r, pctOfDpOnEstimate: dp ? (100 * r.value) / dp.value : null }));
  return {
    scenario: market.scenario.name,
    products: n,
    optimum,
    lpBound: anyFinite ? lp : null,
    fittedElasticity: fittedSum / n,
    trueElasticity: trueSum / n,
    elasticityMae: absErr / n,
    fitSeconds,
    optimumSeconds,
    rows,
    policies,
    market,
    context,
  };
}
