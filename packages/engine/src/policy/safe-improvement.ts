import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import type { PricingProblem, ProductPolicy } from "../problem/pricing-problem.js";
import { buildProblem, problemFromRates } from "../problem/problem-setup.js";
import { rulePolicy } from "../rule/rule-policy.js";
import type { RuleParams } from "../rule/rule-price.js";
import type { RlPolicy } from "./rl-policy.js";
import type { DemandUncertainty, ProductTrainingData, TrainingInput } from "./training-input.js";

/**
 * Width, in standard errors, of the band of plausible demand models the learned policy must beat the rule in
 * (about a 95 % interval per parameter). A fixed constant: it is never tuned to a market.
 */
export const SAFETY_Z = 2;

/** The fitted uncertainty of a product (a `FittedProduct` or the like), as the training input carries it. */
export function demandUncertaintyOf(fitted: {
  readonly referencePrice: number;
  readonly elasticity: number;
  readonly stdErrors: { readonly elasticity: number; readonly logIntercept: number };
}): DemandUncertainty {
  return {
    referencePrice: fitted.referencePrice,
    elasticity: fitted.elasticity,
    elasticitySe: fitted.stdErrors.elasticity,
    logRateSe: fitted.stdErrors.logIntercept,
  };
}

/** One plausible demand model: the fitted one with its elasticity and base rate moved. */
export interface PlausibleModel {
  readonly elasticity: number;
  /** Multiplier on the fitted base rate. */
  readonly rateFactor: number;
}

/**
 * The models the check ranges over: the estimate, elasticity at estimate -/+ z se (kept >= 0, the fit's own sign
 * constraint), and base rate x exp(-/+ z se). Without uncertainty, the fitted model alone.
 */
export function plausibleModels(u: DemandUncertainty | undefined, z = SAFETY_Z): PlausibleModel[] {
  if (u === undefined) return [{ elasticity: Number.NaN, rateFactor: 1 }];
  const models: PlausibleModel[] = [
    { elasticity: u.elasticity, rateFactor: 1 },
    { elasticity: Math.max(0, u.elasticity - z * u.elasticitySe), rateFactor: 1 },
    { elasticity: u.elasticity + z * u.elasticitySe, rateFactor: 1 },
    { elasticity: u.elasticity, rateFactor: Math.exp(-z * u.logRateSe) },
    { elasticity: u.elasticity, rateFactor: Math.exp(z * u.logRateSe) },
  ];
  // Identical models (a zero standard error) are evaluated once.
  return models.filter(
    (m, i) => models.findIndex((o) => o.elasticity === m.elasticity && o.rateFactor === m.rateFactor) === i,
  );
}

/** The policy's fitted problem with demand re-scaled to `model` (constant elasticity, so one factor per price). */
function problemUnder(base: PricingProblem, u: DemandUncertainty | undefined, model: PlausibleModel) {
  if (u === undefined) return base;
  const shift = model.elasticity - u.elasticity;
  const factor = base.prices.map((p) => model.rateFactor * (p / u.referencePrice) ** -shift);
  const index = new Map(base.prices.map((p, i) => [p, i]));
  return buildProblem(base, (day, price) => {
    const i = index.get(price) ?? Number.NaN;
    return base.rate(day, i) * (factor[i] ?? Number.NaN);
  });
}

/** `remembered`'s mark of a state not decided yet (no action is this low). */
const UNDECIDED = -0x80000000;

/**
 * `policy`'s decisions kept by state (day, whole stock level or unlimited, previous price index): each policy is
 * evaluated under every plausible model, which changes how likely a state is, not what the policy does in it.
 */
function remembered(problem: PricingProblem, policy: ProductPolicy): ProductPolicy {
  const levels = problem.stock === null ? 1 : problem.stock + 1;
  const previous = problem.prices.length + 1;
  const decisions = new Map<number, number>();
  const unknownPrevious = new Int32Array(problem.horizon * levels).fill(UNDECIDED);
  return (day, stock, prevIndex) => {
    const level = problem.stock !== null ? stock : stock === Number.POSITIVE_INFINITY ? 0 : -1;
    if (
      !Number.isInteger(level) ||
      level < 0 ||
      level >= levels ||
      prevIndex < -1 ||
      prevIndex >= previous - 1
    )
      return policy(day, stock, prevIndex);
    // Without a previous price (no max daily change: every state the check evaluates) a dense table, not the map:
    // its lookups were a fifth of the rule's evaluations (5.5 M states on bench:train's 100 products).
    if (prevIndex === -1 && day >= 0 && day < problem.horizon && Number.isInteger(day)) {
      const at = day * levels + level;
      const known = unknownPrevious[at] as number;
      if (known !== UNDECIDED) return known;
      const action = policy(day, stock, prevIndex);
      // Only what an Int32Array holds as is (a grid index, SHUTOFF); anything else is asked again.
      if ((action | 0) === action && action !== UNDECIDED) unknownPrevious[at] = action;
      return action;
    }
    const key = (day * levels + level) * previous + prevIndex + 1;
    let action = decisions.get(key);
    if (action === undefined) {
      action = policy(day, stock, prevIndex);
      decisions.set(key, action);
    }
    return action;
  };
}

/**
 * The check's evaluations drop stock levels holding under 1e-15 of probability: on a 30-product company every
 * decision stayed, the margins moved by under 2e-11 of themselves, and the check's CPU fell from 15.3 to 8.2 s.
 */
const EVALUATION = { negligibleMass: 1e-15 } as const;

export type SafetyDecision = "rl" | "rule" | "rl_no_rule";

/** What the check found for one product (kept in the artifact's metrics). */
export interface ProductSafety {
  readonly productId: string;
  /**
   * "rl": its worst-case margin over the plausible models is above the rule's; "rule": it is not, and the product
   * falls back to the rule; "rl_no_rule": no rule to fall back to.
   */
  readonly decision: SafetyDecision;
  readonly models: number;
  /** Expected margins under the fitted model. */
  readonly rlMargin: number;
  readonly ruleMargin: number | null;
  /**
   * Lowest expected margin over the plausible models. For a product on the rule, the learned policy's over the
   * models evaluated until that was certain (at or below the rule's worst), as is `worstCaseGain`.
   */
  readonly rlWorstMargin: number;
  readonly ruleWorstMargin: number | null;
  /** min over the models of (RL margin - rule margin): a diagnostic, not the decision (see below). */
  readonly worstCaseGain: number | null;
  /** Elasticity of the model where that minimum falls. */
  readonly worstCaseElasticity: number | null;
}

export interface SafetyReport {
  readonly z: number;
  readonly productsKeptRl: number;
  readonly productsOnRule: number;
  readonly products: ProductSafety[];
}

export interface SafeImprovement {
  /** The policy with the fallbacks applied (a new instance; the input policy is left as it is). */
  readonly policy: RlPolicy;
  readonly report: SafetyReport;
  /** Expected margins under the fitted model, summed over products: the final policy and the rule. */
  readonly margins: { readonly policy: number; readonly rule: number | null };
}

/** One product as the check needs it: its setup, fitted rates (float32, as the simulator holds them) and data. */
export interface SafetyProduct {
  readonly setup: ProductTrainingData["setup"];
  readonly rates: ArrayLike<number>;
  readonly ruleParams?: RuleParams | undefined;
  readonly demandUncertainty?: DemandUncertainty | undefined;
}

/** Each of `product`'s plausible problems (in `plausibleModels` order), the fitted one first. */
function plausibleProblems(
  product: SafetyProduct,
  z: number,
): { fitted: PricingProblem; problems: PricingProblem[] } {
  const fitted = problemFromRates(product.setup, product.rates);
  const u = product.demandUncertainty;
  const problems = plausibleModels(u, z).map((model, k) =>
    k === 0 ? fitted : problemUnder(fitted, u, model),
  );
  return { fitted, problems };
}

/**
 * The rule's exact expected margin under each plausible model of `product` (in `plausibleModels` order), or null
 * without rule parameters. Independent of the learned policy, so it can run while the policy trains.
 */
export function ruleMarginsUnderModels(product: SafetyProduct, z = SAFETY_Z): number[] | null {
  const steps = ruleMarginsInSteps(product, z);
  while (!steps.step()) {
    // One plausible model per step.
  }
  return steps.margins;
}

/** `ruleMarginsUnderModels` one plausible model at a time (see `ruleMarginsInSteps`). */
export interface RuleMarginSteps {
  /** Evaluates the next plausible model; true once every one is (then `margins` is complete). */
  step(): boolean;
  readonly margins: number[] | null;
}

/**
 * `ruleMarginsUnderModels` in steps of one evaluation (a few ms on a 60-day season), so that a thread can fit
 * them into short idle spells (the training's second thread, while it waits for a free batch slot). The same
 * evaluations in the same order: the same margins bit for bit.
 */
export function ruleMarginsInSteps(product: SafetyProduct, z = SAFETY_Z): RuleMarginSteps {
  const params = product.ruleParams;
  if (params === undefined) return { step: () => true, margins: null };
  const { fitted, problems } = plausibleProblems(product, z);
  // The plausible models move the demand, not the guardrails and dates the rule prices by: one rule serves all.
  const rule = remembered(fitted, rulePolicy(fitted, params));
  const margins: number[] = [];
  return {
    step: () => {
      const problem = problems[margins.length];
      if (problem !== undefined) margins.push(evaluatePolicy(problem, rule, EVALUATION).value);
      return margins.length === problems.length;
    },
    margins,
  };
}

/**
 * The learned policy's margin per plausible model (in `plausibleModels` order), null where it was not evaluated
 * because the check's decision was already certain. The fitted model's is always there.
 */
export type PolicyMargins = (number | null)[];

/** The lowest of the rule's margins over the plausible models: what the learned policy must beat under each. */
export function ruleWorstMargin(ruleMargins: readonly number[] | null): number | null {
  return ruleMargins === null ? null : Math.min(...ruleMargins);
}

/**
 * Indices of `models` in the order the learned policy is evaluated: the fitted one, then by demand, lowest first
 * (base rate down, then elasticity up), where a policy's margin is lowest, so that the evaluation of a product bound
 * for the rule stops after few models.
 */
function evaluationOrder(models: readonly PlausibleModel[]): number[] {
  const rest = models.map((_, k) => k).slice(1);
  rest.sort((i, j) => {
    const a = models[i] as PlausibleModel;
    const b = models[j] as PlausibleModel;
    return a.rateFactor - b.rateFactor || b.elasticity - a.elasticity;
  });
  return [0, ...rest];
}

/**
 * The learned policy's exact expected margin under each plausible model of its product `productId`. With the
 * rule's worst margin, it stops at the first model where the policy earns no more than that: the product then goes
 * to the rule whatever the other models give (the check's exact evaluations were 3.3 s of the 100-product
 * training's critical path, and 16-42 of its 100 products end on the rule).
 */
export function policyMarginsUnderModels(
  policy: RlPolicy,
  productId: string,
  demandUncertainty: DemandUncertainty | undefined,
  z = SAFETY_Z,
  ruleWorst: number | null = null,
): PolicyMargins {
  const m = policy.products[policy.productIndex(productId)];
  if (m === undefined) throw new RangeError(`unknown product ${productId}`);
  const u = demandUncertainty;
  const { fitted, problems } = plausibleProblems({ setup: m.setup, rates: m.rates, demandUncertainty: u }, z);
  const rl = remembered(fitted, policy.productPolicy(productId));
  const margins: PolicyMargins = problems.map(() => null);
  for (const k of evaluationOrder(plausibleModels(u, z))) {
    const value = evaluatePolicy(problems[k] as PricingProblem, rl, EVALUATION).value;
    margins[k] = value;
    if (ruleWorst !== null && value <= ruleWorst) break;
  }
  return margins;
}

/** Margins computed elsewhere (another thread), by product id: what `safePolicyImprovement` then skips. */
export interface PrecomputedMargins {
  readonly rule?: ReadonlyMap<string, number[] | null>;
  readonly policy?: ReadonlyMap<string, PolicyMargins>;
}

/**
 * Safe policy improvement over the rule (in the spirit of high-confidence policy improvement, Thomas et al. 2015,
 * and SPIBB, Laroche et al. 2019): the policy was learned from the fitted model alone, so wherever the data barely
 * identify demand it inherits the fit's error. Both policies are evaluated exactly (no Monte Carlo) under every
 * plausible demand model of the fit's own uncertainty, and a product keeps the learned policy only if its
 * worst-case margin over that set beats the rule's worst-case margin (robust, max-min improvement); otherwise it
 * is priced by the rule. Products without rule parameters keep the learned policy.
 *
 * Why max-min and not "better under every model" (min of the differences, also recorded as `worstCaseGain`): with
 * elasticity at -2 se the markup that is optimal shifts so far up that a rule stuck near the old price wins that
 * single corner even where it loses 38 % of the optimum at the estimate (the unlimited-stock market); the pairwise
 * test then discards nearly every learned policy. Max-min still rejects a policy whose good value hinges on an
 * elasticity the data do not pin down (flat price history), which is the failure this guards against.
 *
 * `precomputed` margins (`ruleMarginsUnderModels`, `policyMarginsUnderModels` run elsewhere with the same `z`)
 * are used as they are; the rest are computed here.
 */
export function safePolicyImprovement(
  policy: RlPolicy,
  input: Pick<TrainingInput, "products">,
  z = SAFETY_Z,
  precomputed: PrecomputedMargins = {},
): SafeImprovement {
  const byId = new Map(input.products.map((p) => [p.setup.productId, p]));
  const fallbacks: Record<string, RuleParams> = {};
  const products: ProductSafety[] = [];
  let policyMargin = 0;
  let ruleMargin = 0;
  let anyRule = false;
  for (const m of policy.products) {
    const id = m.setup.productId;
    const data = byId.get(id);
    const params = data?.ruleParams;
    const u = data?.demandUncertainty;
    const models = plausibleModels(u, z);
    const ruleMargins =
      params === undefined
        ? null
        : (precomputed.rule?.get(id) ??
          ruleMarginsUnderModels(
            { setup: m.setup, rates: m.rates, ruleParams: params, demandUncertainty: u },
            z,
          ));
    const rlMargins =
      precomputed.policy?.get(id) ?? policyMarginsUnderModels(policy, id, u, z, ruleWorstMargin(ruleMargins));
    let rlFitted = 0;
    let ruleFitted: number | null = null;
    let rlWorst = Number.POSITIVE_INFINITY;
    let ruleWorst = Number.POSITIVE_INFINITY;
    let worstGain = Number.POSITIVE_INFINITY;
    let worstAt: number | null = null;
    for (const [k, model] of models.entries()) {
      // Null: not evaluated, the product already bound for the rule.
      const vRl = rlMargins[k] ?? null;
      if (vRl !== null) rlWorst = Math.min(rlWorst, vRl);
      if (k === 0) rlFitted = vRl ?? Number.NaN;
      if (ruleMargins === null) continue;
      const vRule = ruleMargins[k] ?? Number.NaN;
      ruleWorst = Math.min(ruleWorst, vRule);
      if (k === 0) ruleFitted = vRule;
      if (vRl !== null && vRl - vRule < worstGain) {
        worstGain = vRl - vRule;
        worstAt = Number.isNaN(model.elasticity) ? null : model.elasticity;
      }
    }
    const decision: SafetyDecision =
      params === undefined ? "rl_no_rule" : rlWorst > ruleWorst ? "rl" : "rule";
    if (decision === "rule" && params !== undefined) fallbacks[id] = params;
    policyMargin += decision === "rule" && ruleFitted !== null ? ruleFitted : rlFitted;
    if (ruleFitted !== null) {
      ruleMargin += ruleFitted;
      anyRule = true;
    }
    products.push({
      productId: id,
      decision,
      models: models.length,
      rlMargin: rlFitted,
      ruleMargin: ruleFitted,
      rlWorstMargin: rlWorst,
      ruleWorstMargin: params === undefined ? null : ruleWorst,
      worstCaseGain: params === undefined ? null : worstGain,
      worstCaseElasticity: worstAt,
    });
  }
  const onRule = products.filter((p) => p.decision === "rule").length;
  return {
    policy: policy.withRuleFallbacks(fallbacks),
    report: { z, productsKeptRl: products.length - onRule, productsOnRule: onRule, products },
    margins: { policy: policyMargin, rule: anyRule ? ruleMargin : null },
  };
}

/**
 * The safety gate a refreshed policy passes before it is approved without an operator: training's safety check has
 * put every product whose worst case over the plausible models is below the rule's on the rule, and what is left
 * must earn at least the rule's margin under the fitted model (`upliftPct` >= 0). Unmeasured uplift fails.
 */
export function passesSafetyGate(metrics: { readonly upliftPct: number | null }): boolean {
  return metrics.upliftPct !== null && metrics.upliftPct >= 0;
}
