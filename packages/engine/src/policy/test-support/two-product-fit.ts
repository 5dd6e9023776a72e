import seedrandom from "seedrandom";
import { addDays } from "../../base/calendar.js";
import { fitDemand } from "../../demand/fit-demand.js";
import { problemFromFit } from "../../demand/problem-from-fit.js";
import type { ProblemSetup } from "../../problem/problem-setup.js";
import { type RuleParams, ruleParamsFromHistory } from "../../rule/rule-price.js";
import type { SalesRow } from "../../sales/sales-row.js";
import type { RlPolicy } from "../rl-policy.js";
import { demandUncertaintyOf } from "../safe-improvement.js";
import { type TrainingInput, TrainingInputSchema, trainingDataFromProblems } from "../training-input.js";

export const START = "2026-03-02";
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
    overdispersion: 0,
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

/**
 * Two products fitted from a seeded year of sales: "flat" (constant price, nothing to learn from) and "rich"
 * (price varied weekly), with their rule parameters and demand uncertainty: the safe-improvement check's case.
 */
export function twoProductInput(): { input: TrainingInput; rules: Map<string, RuleParams> } {
  const rng = seedrandom("safe-improvement");
  const rows = [...history("flat", false, rng), ...history("rich", true, rng)];
  const fit = fitDemand(rows, [
    { productId: "flat", referencePrice: 10 },
    { productId: "rich", referencePrice: 10 },
  ]);
  const ids = ["flat", "rich"];
  const rules = new Map(ids.map((id) => [id, ruleParamsFromHistory(rows, id, 10)]));
  const problems = ids.map((id) => problemFromFit(fit, setup(id)));
  const input = TrainingInputSchema.parse({
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
  return { input, rules };
}

/** The product's problem under the demand tables the policy carries (the fitted model). */
export function problemFromFitted(policy: RlPolicy, productId: string) {
  const model = policy.products[policy.productIndex(productId)]!;
  const n = model.setup.prices.length;
  return {
    ...model.setup,
    prices: [...model.setup.prices],
    rate: (day: number, i: number) => model.rates[day * n + i]!,
  };
}
