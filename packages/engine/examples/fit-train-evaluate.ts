/**
 * The engine end to end on a simulated shop: fit demand to sales history, build the simulator the fit implies,
 * train a pricing policy in it, and evaluate that policy, the rule and the optimum exactly under the TRUE demand.
 * Seeded, so it prints the same table every run. Usage: npx tsx packages/engine/examples/fit-train-evaluate.ts
 */
import {
  evaluatePolicy,
  fitDemand,
  generateMarket,
  problemFromFit,
  problemFromTruth,
  ruleParamsFromHistory,
  rulePolicy,
  solveOptimum,
  trainingDataFromProblems,
  trainPolicy,
} from "../src/index.js";

// A shop with two products: one with 60 units to sell over four weeks, one restocked (unlimited).
const market = generateMarket({
  name: "example",
  seed: 7,
  start_date: "2026-05-04",
  horizon: 28,
  history: { days: 180, price_variation: 0.15, change_every_days: 7 },
  products: [
    {
      product_id: "scarf",
      reference_price: 30,
      unit_cost: 12,
      stock: 60,
      demand: { family: "constant_elasticity", base_rate: 3, elasticity: 2.2 },
    },
    {
      product_id: "socks",
      reference_price: 8,
      unit_cost: 3,
      demand: { family: "constant_elasticity", base_rate: 10, elasticity: 1.6 },
    },
  ],
});

// 1. Fit: a Poisson demand model per product from the history rows alone.
const fit = fitDemand(
  market.history,
  market.products.map((p) => ({ productId: p.productId, referencePrice: p.referencePrice })),
);

// 2. Simulate: each product's selling problem (grid, stock, horizon) under the fitted demand.
const believed = market.products.map((p) => problemFromFit(fit, p.setup));

// 3. Train: fitted Q-iteration in that simulator (a small budget for the example).
const policy = await trainPolicy({
  companyId: "example",
  products: trainingDataFromProblems(
    believed,
    Object.fromEntries(market.products.map((p) => [p.productId, p.referencePrice])),
  ),
  config: { seed: 1, stepsPerDay: 30, finalSteps: 300 },
});

// 4. Evaluate: exact expected margins under the true demand, for the policy, the rule and the optimum. A policy is
// only as good as the fit it learned in: where the fit is off, it can lose to the rule, which is why a production
// training (`trainArtifact`, `trainInWorker`) keeps the rule wherever the policy does not beat it across the fit's
// uncertainty (`safePolicyImprovement`).
console.log("product  elasticity(fit/true)  policy   rule     optimum");
try {
  for (const product of market.products) {
    const truth = problemFromTruth(product.truth, product.setup);
    const rule = ruleParamsFromHistory(market.history, product.productId, product.referencePrice);
    const learned = evaluatePolicy(truth, policy.productPolicy(product.productId)).value;
    const ruled = evaluatePolicy(truth, rulePolicy(truth, rule)).value;
    const optimum = solveOptimum(truth).value;
    const elasticity = fit.products.get(product.productId)?.elasticity ?? Number.NaN;
    console.log(
      [
        product.productId.padEnd(8),
        `${elasticity.toFixed(2)}/${product.spec.demand.elasticity}`.padEnd(21),
        learned.toFixed(0).padStart(7),
        ruled.toFixed(0).padStart(7),
        optimum.toFixed(0).padStart(9),
      ].join(" "),
    );
  }
} finally {
  policy.dispose();
}
