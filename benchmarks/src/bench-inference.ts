/**
 * Inference benchmark: prices per second of the RL policy at several batch sizes, and the time of the engine's
 * plan (`planPrices`, what the API serves) for a 100-product company over 90 days (one batched forward pass per
 * day, stock rolled forward by expected sales), and the nightly plan as the server makes it (`planWithLearning`:
 * the demand fit, the online learner and every row's p10/p90) for the same company with a year of sales history,
 * timed in CPU seconds of this process (the machine is shared: CPU time moves less with the load than wall time).
 *
 *   pnpm bench:inference [--quick] [--products N]
 *
 * `--products` (100) sizes the company of the plan rows (`pnpm bench:smoke` runs 10).
 */
import { parseArgs } from "node:util";
import {
  addDays,
  generateMarket,
  initTfBackend,
  planPrices,
  planWithLearning,
  problemFromTruth,
  type RlPolicy,
  type ScenarioInput,
  tensorCount,
  trainingDataFromProblems,
  trainPolicy,
} from "@pricing/engine";
import seedrandom from "seedrandom";
import { marketStates } from "./market-states.js";

const { values: args } = parseArgs({
  options: { quick: { type: "boolean", default: false }, products: { type: "string", default: "100" } },
});
const PRODUCTS = Number(args.products);
if (!Number.isInteger(PRODUCTS) || PRODUCTS < 1) throw new Error("--products must be a positive integer");

const scenario: ScenarioInput = {
  name: `inference-${PRODUCTS}x90`,
  seed: 21,
  start_date: "2026-03-02",
  horizon: 90,
  history: { days: 0 },
  company: { count: PRODUCTS, stock_ratio: [0.6, 1.2] },
};

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function randomBatch(policy: RlPolicy, size: number, rng: () => number) {
  const product = new Int32Array(size);
  const day = new Int32Array(size);
  const stock = new Float64Array(size);
  const prevPrice = new Float64Array(size);
  for (let r = 0; r < size; r++) {
    const i = Math.floor(rng() * policy.products.length);
    const setup = policy.products[i]!.setup;
    product[r] = i;
    day[r] = Math.floor(rng() * setup.horizon);
    stock[r] = setup.stock === null ? Number.POSITIVE_INFINITY : Math.floor(rng() * (setup.stock + 1));
    prevPrice[r] = setup.prices[Math.floor(rng() * setup.prices.length)]!;
  }
  return { product, day, stock, prevPrice };
}

async function main(): Promise<void> {
  const backend = await initTfBackend();
  const market = generateMarket(scenario);
  const problems = market.products.map((p) => problemFromTruth(p.truth, p.setup));
  let t0 = performance.now();
  // Inference speed does not depend on how well the weights are trained: a short run keeps this benchmark quick.
  const policy = await trainPolicy({
    companyId: "bench",
    products: trainingDataFromProblems(problems),
    config: { seed: 1, statesPerDay: 8, stepsPerDay: 1, finalSteps: 0 },
  });
  const setupSeconds = (performance.now() - t0) / 1000;
  const rng = seedrandom("bench-inference");
  // The network keeps its first layer's stock-column rows from its first forward pass until its weights change (a
  // cache freed with it), so tensors are counted from after one: what must not grow is the count per call.
  policy.priceStates(randomBatch(policy, 1, seedrandom("bench-inference warm-up")));
  const tensorsBefore = tensorCount();
  let violations = 0;
  let priced = 0;

  const rows: string[][] = [["case", "batch", "calls", "p50 ms", "prices/s"]];
  for (const size of args.quick ? [100, 1000, 10_000] : [1, 100, 1000, 10_000, 100_000]) {
    const batch = randomBatch(policy, size, rng);
    policy.priceStates(batch);
    const times: number[] = [];
    const budgetMs = args.quick ? 300 : 1500;
    const start = performance.now();
    while (performance.now() - start < budgetMs || times.length < 3) {
      const t = performance.now();
      const idx = policy.priceStates(batch);
      times.push(performance.now() - t);
      for (let r = 0; r < size; r++) {
        const setup = policy.products[batch.product[r]!]!.setup;
        const p = setup.prices[idx[r]!];
        priced++;
        if (p === undefined || p < setup.minPrice || p > setup.maxPrice) violations++;
      }
    }
    times.sort((a, b) => a - b);
    const total = times.reduce((a, b) => a + b, 0);
    rows.push([
      "priceStates",
      String(size),
      String(times.length),
      percentile(times, 0.5).toFixed(3),
      Math.round((size * times.length) / (total / 1000)).toLocaleString("en-US"),
    ]);
  }

  const states = [...marketStates(market).values()];
  const planTimes: number[] = [];
  const planCpu: number[] = [];
  let planSize = 0;
  let fromPolicy = 0;
  for (let k = 0; k < (args.quick ? 10 : 40); k++) {
    t0 = performance.now();
    const cpuBefore = process.cpuUsage();
    const plan = planPrices({
      today: scenario.start_date,
      startDate: scenario.start_date,
      endDate: addDays(scenario.start_date, scenario.horizon - 1),
      products: states,
      active: { source: "latest", modelId: "bench", policy },
      fit: () => null,
    });
    planTimes.push(performance.now() - t0);
    const cpuUsed = process.cpuUsage(cpuBefore);
    planCpu.push((cpuUsed.user + cpuUsed.system) / 1000);
    planSize = plan.length;
    fromPolicy = plan.filter((row) => row.source === "latest").length;
    for (const row of plan) {
      const setup = policy.products[policy.productIndex(row.product_id)]?.setup;
      priced++;
      if (setup === undefined || row.price < setup.minPrice || row.price > setup.maxPrice) violations++;
    }
  }
  planTimes.sort((a, b) => a - b);
  rows.push([
    `planPrices ${PRODUCTS} products x 90 days`,
    String(planSize),
    String(planTimes.length),
    percentile(planTimes, 0.5).toFixed(3),
    Math.round(planSize / (percentile(planTimes, 0.5) / 1000)).toLocaleString("en-US"),
  ]);
  // 20 timed plans in full mode, as planPrices' row takes the median of 40: the row stands for the nightly worker's
  // median company, and a worker plans hundreds of companies in one process, so the JIT's first compiles (a
  // process's plans 1-3) are a few of its plans, not the median of five.
  const learning = learningPlanRow(args.quick ? 2 : 20);
  rows.push(learning.row);
  planCpu.sort((a, b) => a - b);
  const leaked = tensorCount() - tensorsBefore;
  policy.dispose();

  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  console.log(`backend: ${backend.name} (${backend.note}); policy set-up ${setupSeconds.toFixed(1)} s`);
  for (const r of rows)
    console.log(
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "),
    );
  // Both plans in CPU ms of this process: on a loaded machine the wall time of planPrices grows with the load,
  // and a ratio of CPU to wall time would flatter the learner.
  const planPricesCpu = percentile(planCpu, 0.5);
  console.log(
    `planWithLearning / planPrices, p50 CPU ms of this process: ${learning.p50.toFixed(1)} / ${planPricesCpu.toFixed(1)} = ${(learning.p50 / planPricesCpu).toFixed(1)}x (target <= 3x)`,
  );
  console.log(
    `prices checked: ${priced.toLocaleString("en-US")}, guardrail violations: ${violations}, tensors leaked: ${leaked}`,
  );
  if (fromPolicy !== planSize) console.log(`plan rows priced by the rule: ${planSize - fromPolicy}`);
  if (violations > 0 || leaked !== 0 || fromPolicy !== planSize) process.exitCode = 1;
}

/**
 * The nightly plan's cost where the learner prices: a refit of the demand model from a year of history, then every
 * product's learned price and band for each of the 90 days. Median CPU milliseconds of this process per plan.
 */
function learningPlanRow(runs: number): { row: string[]; p50: number } {
  const market = generateMarket({ ...scenario, name: `learning-${PRODUCTS}x90`, history: { days: 365 } });
  const states = [...marketStates(market).values()];
  const cpu: number[] = [];
  let size = 0;
  // Run 0 is not timed: a process's first plan also warms the JIT, which a plan worker pays once, not per company.
  for (let k = 0; k <= runs; k++) {
    const before = process.cpuUsage();
    const plan = planWithLearning({
      today: scenario.start_date,
      startDate: scenario.start_date,
      endDate: addDays(scenario.start_date, scenario.horizon - 1),
      products: states,
      active: { source: "rule", modelId: null, policy: null },
      history: market.history,
      exploration: "cautious",
      seed: "bench",
      online: true,
    });
    const used = process.cpuUsage(before);
    if (k > 0) cpu.push((used.user + used.system) / 1000);
    size = plan.length;
  }
  cpu.sort((a, b) => a - b);
  const p50 = percentile(cpu, 0.5);
  return {
    row: [
      `planWithLearning ${PRODUCTS} x 90, 365 days of history (CPU ms)`,
      String(size),
      String(cpu.length),
      p50.toFixed(1),
      Math.round(size / (p50 / 1000)).toLocaleString("en-US"),
    ],
    p50,
  };
}

await main();
