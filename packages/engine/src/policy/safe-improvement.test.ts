import seedrandom from "seedrandom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPolicyArtifact } from "../artifact/policy-artifact.js";
import { addDays } from "../base/calendar.js";
import { fitDemand } from "../demand/fit-demand.js";
import { problemFromFit } from "../demand/problem-from-fit.js";
import type { SalesRow } from "../market/generate-market.js";
import { evaluatePolicy } from "../optimum/evaluate-policy.js";
import type { ProblemSetup } from "../problem/problem-setup.js";
import { rulePolicy } from "../rule/rule-policy.js";
import { type RuleParams, ruleParamsFromHistory } from "../rule/rule-price.js";
import { trainPolicy } from "./fitted-q.js";
import type { RlPolicy } from "./rl-policy.js";
import { demandUncertaintyOf, plausibleModels, SAFETY_Z, safePolicyImprovement } from "./safe-improvement.js";
import { trainArtifact } from "./train-artifact.js";
import { type TrainingInput, TrainingInputSchema, trainingDataFromProblems } from "./training-input.js";

const START = "2026-03-02";
const prices = Array.from({ length: 19 }, (_, i) => 5 + i * 0.5);

function setup(productId: string): ProblemSetup {
  return {
    productId,
    startDate: START,
    horizon: 14,
    prices,
    minPrice: 5,
    maxPrice: 14,
    shutoff: false,
    unitCost: 4,
    stock: null,
    maxDailyChange: null,
    initialPrice: null,
    distribution: "poisson",
  };
}

/** A year of Poisson sales at true elasticity 2.5 around price 10; `varies` moves the price weekly by up to 25 %. */
function history(productId: string, varies: boolean, rng: seedrandom.PRNG): SalesRow[] {
  const rows: SalesRow[] = [];
  let price = 10;
  for (let d = 0; d < 365; d++) {
    if (varies && d % 7 === 0) price = Math.round(10 * Math.exp(0.25 * (2 * rng() - 1)) * 100) / 100;
    const mean = 6 * (price / 10) ** -2.5;
    // Knuth's Poisson draw: small means only, from the seeded generator.
    let k = 0;
    let p = rng();
    while (p > Math.exp(-mean)) {
      p *= rng();
      k++;
    }
    rows.push({
      date: addDays("2025-03-02", d),
      product_id: productId,
      price,
      units_sold: k,
      stock_on_hand: null,
    });
  }
  return rows;
}

let input: TrainingInput;
let rules: Map<string, RuleParams>;
let trained: RlPolicy;

beforeAll(async () => {
  const rng = seedrandom("safe-improvement");
  const rows = [...history("flat", false, rng), ...history("rich", true, rng)];
  const fit = fitDemand(rows, [
    { productId: "flat", referencePrice: 10 },
    { productId: "rich", referencePrice: 10 },
  ]);
  const ids = ["flat", "rich"];
  rules = new Map(ids.map((id) => [id, ruleParamsFromHistory(rows, id, 10)]));
  const problems = ids.map((id) => problemFromFit(fit, setup(id)));
  input = TrainingInputSchema.parse({
    companyId: "acme",
    products: trainingDataFromProblems(problems, { flat: 10, rich: 10 }).map((data) => {
      const rule = rules.get(data.setup.productId)!;
      return {
        ...data,
        ruleParams: { ...rule, weekdayIndex: [...rule.weekdayIndex] },
        demandUncertainty: demandUncertaintyOf(fit.products.get(data.setup.productId)!),
      };
    }),
    config: { seed: 3, stepsPerDay: 10, finalSteps: 100 },
  });
  trained = await trainPolicy(input);
});

afterAll(() => trained?.dispose());

describe("safe policy improvement over the rule", () => {
  it("ranges over the fit's own band: elasticity -/+ z se (kept >= 0) and base rate -/+ z se", () => {
    const models = plausibleModels({ referencePrice: 10, elasticity: 1, elasticitySe: 0.8, logRateSe: 0.1 });
    expect(models.map((m) => m.elasticity)).toEqual([1, 0, 1 + SAFETY_Z * 0.8, 1, 1]);
    expect(models[3]!.rateFactor).toBeCloseTo(Math.exp(-SAFETY_Z * 0.1));
    expect(
      plausibleModels({ referencePrice: 10, elasticity: 2, elasticitySe: 0, logRateSe: 0 }),
    ).toHaveLength(1);
  });

  it("keeps the rule for a constant-price product and the learned policy for a richly varied one", () => {
    const { policy, report, margins } = safePolicyImprovement(trained, input);
    try {
      const flat = report.products.find((p) => p.productId === "flat")!;
      const rich = report.products.find((p) => p.productId === "rich")!;
      expect(flat.decision).toBe("rule");
      expect(flat.rlWorstMargin).toBeLessThanOrEqual(flat.ruleWorstMargin!);
      expect(flat.worstCaseGain).toBeLessThanOrEqual(0);
      expect(rich.decision).toBe("rl");
      expect(rich.rlWorstMargin).toBeGreaterThan(rich.ruleWorstMargin!);
      expect(rich.rlWorstMargin).toBeLessThanOrEqual(rich.rlMargin);
      expect(report).toMatchObject({ z: SAFETY_Z, productsKeptRl: 1, productsOnRule: 1 });
      expect(policy.usesRule("flat")).toBe(true);
      expect(policy.usesRule("rich")).toBe(false);
      // The fallback prices exactly like the rule; the kept product exactly like the trained network.
      const flatProblem = problemFromFitted(policy, "flat");
      const ruleValue = evaluatePolicy(flatProblem, rulePolicy(flatProblem, rules.get("flat")!)).value;
      expect(evaluatePolicy(flatProblem, policy.productPolicy("flat")).value).toBeCloseTo(ruleValue, 9);
      expect(margins.policy).toBeCloseTo(ruleValue + rich.rlMargin, 6);
      for (let day = 0; day < 14; day++) {
        expect(policy.productPolicy("rich")(day, Infinity, -1)).toBe(
          trained.productPolicy("rich")(day, Infinity, -1),
        );
      }
    } finally {
      policy.dispose();
    }
  });

  it("writes the flags and rule parameters into the artifact, and the loaded policy honours them", async () => {
    const artifact = await trainArtifact(input, { modelId: "safe-1" });
    const m = artifact.manifest;
    expect(m.products.map((p) => [p.setup.productId, p.pricedBy])).toEqual([
      ["flat", "rule"],
      ["rich", "rl"],
    ]);
    expect(m.products[0]!.ruleParams?.basePrice).toBe(rules.get("flat")!.basePrice);
    expect(m.metrics.safety?.productsKeptRl).toBe(1);
    expect(m.metrics.safety?.products.map((p) => p.decision)).toEqual(["rule", "rl"]);
    const loaded = await loadPolicyArtifact({
      manifest: JSON.parse(JSON.stringify(m)) as unknown,
      weights: Uint8Array.from(artifact.weights),
    });
    try {
      expect(loaded.usesRule("flat")).toBe(true);
      expect(loaded.usesRule("rich")).toBe(false);
      const flatProblem = problemFromFitted(loaded, "flat");
      const rule = rulePolicy(flatProblem, rules.get("flat")!);
      const plan = loaded.recommend({
        today: START,
        products: [
          { productId: "flat", stock: null, lastPrice: null },
          { productId: "rich", stock: null, lastPrice: null },
        ],
      });
      const flatPlan = plan.filter((p) => p.productId === "flat");
      expect(flatPlan).toHaveLength(14);
      expect(flatPlan.map((p) => p.priceIndex)).toEqual(flatPlan.map((_, day) => rule(day, Infinity, -1)));
      const states = loaded.priceStates({
        product: Int32Array.from([0, 0, 1]),
        day: Int32Array.from([0, 5, 5]),
        stock: Float64Array.from([Infinity, Infinity, Infinity]),
        prevPrice: Float64Array.from([Number.NaN, 9, Number.NaN]),
      });
      expect(states[0]).toBe(rule(0, Infinity, -1));
      expect(states[1]).toBe(rule(5, Infinity, -1));
      expect(states[2]).toBe(loaded.productPolicy("rich")(5, Infinity, -1));
      expect(evaluatePolicy(flatProblem, loaded.productPolicy("flat")).value).toBeCloseTo(
        evaluatePolicy(flatProblem, rule).value,
        9,
      );
      // A manifest that flags the rule without its parameters is refused.
      const broken = JSON.parse(JSON.stringify(m)) as { products: { ruleParams?: unknown }[] };
      delete broken.products[0]!.ruleParams;
      await expect(loadPolicyArtifact({ manifest: broken, weights: artifact.weights })).rejects.toMatchObject(
        {
          code: "artifact_invalid",
        },
      );
    } finally {
      loaded.dispose();
    }
  });
});

/** The product's problem under the demand tables the policy carries (the fitted model). */
function problemFromFitted(policy: RlPolicy, productId: string) {
  const model = policy.products[policy.productIndex(productId)]!;
  const n = model.setup.prices.length;
  return {
    ...model.setup,
    prices: [...model.setup.prices],
    rate: (day: number, i: number) => model.rates[day * n + i]!,
  };
}
