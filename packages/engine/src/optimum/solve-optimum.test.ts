import fc from "fast-check";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { sampleDemand } from "../market/sampling.js";
import { allowedRange } from "../problem/action-range.js";
import { SHUTOFF } from "../problem/pricing-problem.js";
import { buildProblem, type ProblemSetup } from "../problem/problem-setup.js";
import { negativeBinomial, POISSON } from "../problem/sales-distribution.js";
import { bestConstantPolicy, constantPricePolicy } from "./best-constant.js";
import { evaluatePolicy } from "./evaluate-policy.js";
import { lpBound } from "./lp-bound.js";
import { solveOptimum } from "./solve-optimum.js";

// Ferreira, Simchi-Levi & Wang (2018), single product, one customer a period, shut-off allowed.
const FERREIRA_PRICES = [29.9, 34.9, 39.9, 44.9];
const FERREIRA_PROBS = [0.8, 0.6, 0.3, 0.1];

function ferreira(horizon: number, stock: number) {
  return buildProblem(
    {
      productId: "ferreira",
      startDate: "2026-01-05",
      horizon,
      prices: FERREIRA_PRICES,
      minPrice: 29.9,
      maxPrice: 44.9,
      shutoff: true,
      unitCost: 0,
      stock,
      maxDailyChange: null,
      initialPrice: null,
      distribution: "bernoulli",
      overdispersion: 0,
    },
    (_day, price) => FERREIRA_PROBS[FERREIRA_PRICES.indexOf(price)]!,
  );
}

const setup = (over: Partial<ProblemSetup> = {}): ProblemSetup => ({
  productId: "p",
  startDate: "2026-03-02",
  horizon: 20,
  prices: [6, 7, 8, 9, 10, 11, 12, 13, 14],
  minPrice: 6,
  maxPrice: 14,
  shutoff: false,
  unitCost: 3,
  stock: 40,
  maxDailyChange: null,
  initialPrice: null,
  distribution: "poisson",
  overdispersion: 0,
  ...over,
});
const elastic = (day: number, price: number) =>
  3 * (1 + 0.3 * (day % 7 === 5 ? 1 : 0)) * (price / 10) ** -2.2;

describe("Ferreira, Simchi-Levi & Wang (2018)", () => {
  it("T=100, I=25: optimum 1001.54", () => {
    expect(solveOptimum(ferreira(100, 25)).value).toBeCloseTo(1001.54, 2);
  });
  it("T=1000, I=250: optimum 10093.50", () => {
    expect(solveOptimum(ferreira(1000, 250)).value).toBeCloseTo(10093.5, 2);
  });
  it("LP (fluid) rate per period: 10.10 at I/T = 0.25 and 17.95 at I/T = 0.5", () => {
    expect(lpBound(ferreira(100, 25)).perPeriod).toBeCloseTo(10.1, 2);
    expect(lpBound(ferreira(1000, 250)).perPeriod).toBeCloseTo(10.1, 2);
    expect(lpBound(ferreira(100, 50)).perPeriod).toBeCloseTo(17.95, 2);
  });
  it("exact evaluation of the optimal policy gives the optimum back", () => {
    const problem = ferreira(100, 25);
    const opt = solveOptimum(problem);
    expect(evaluatePolicy(problem, opt.policy).value).toBeCloseTo(opt.value, 8);
  });
});

describe("solveOptimum", () => {
  it("with unlimited stock is the sum of per-day argmax margins", () => {
    const problem = buildProblem(setup({ stock: null }), elastic);
    let expected = 0;
    for (let t = 0; t < problem.horizon; t++) {
      let best = 0;
      for (let a = 0; a < problem.prices.length; a++) {
        best = Math.max(best, problem.rate(t, a) * (problem.prices[a]! - problem.unitCost));
      }
      expected += best;
    }
    const opt = solveOptimum(problem);
    expect(opt.value).toBeCloseTo(expected, 9);
    expect(evaluatePolicy(problem, opt.policy).value).toBeCloseTo(expected, 9);
  });

  it("is evaluated to within the mass it drops when states under negligibleMass are left out", () => {
    // NB2 demand's far tails reach every stock level within days: most of the 400 levels end up holding under 1e-15.
    const problem = buildProblem(
      setup({ horizon: 60, stock: 400, distribution: "negative_binomial", overdispersion: 0.4 }),
      elastic,
    );
    const policy = solveOptimum(problem).policy;
    const exact = evaluatePolicy(problem, policy);
    const approximate = evaluatePolicy(problem, policy, { negligibleMass: 1e-15 });
    expect(evaluatePolicy(problem, policy, { negligibleMass: 0 })).toEqual(exact);
    expect(approximate.value).not.toBe(exact.value);
    // At most the dropped mass (under 1e-15 a state, 401 states, 60 days) x the best margin a day.
    expect(Math.abs(approximate.value - exact.value)).toBeLessThan(1e-15 * 401 * 60 * 11 * 400);
  });

  it("is bounded by the LP bound and beats every constant price", () => {
    const problem = buildProblem(setup(), elastic);
    const opt = solveOptimum(problem);
    expect(opt.value).toBeLessThanOrEqual(lpBound(problem).value + 1e-9);
    expect(opt.value).toBeGreaterThan(bestConstantPolicy(problem).value);
  });

  it("keeps the LP an upper bound when stock is far below demand and there is no shutoff", () => {
    for (const stock of [0, 1, 3]) {
      const problem = buildProblem(setup({ stock }), elastic);
      expect(solveOptimum(problem).value).toBeLessThanOrEqual(lpBound(problem).value + 1e-9);
    }
  });

  it("equals the brute-force maximum over all policies on a tiny problem", () => {
    const problem = buildProblem(
      setup({ horizon: 3, stock: 2, prices: [5, 10], minPrice: 5, maxPrice: 10, unitCost: 1 }),
      (day, price) => (price === 5 ? 1.5 : 0.6) * (day === 1 ? 1.5 : 1),
    );
    // Enumerate every deterministic Markov policy: an action for each (day, stock in 1..2).
    let best = Number.NEGATIVE_INFINITY;
    for (let code = 0; code < 2 ** 6; code++) {
      const policy = (day: number, stock: number) => (code >> (day * 2 + Math.max(0, stock - 1))) & 1;
      best = Math.max(best, evaluatePolicy(problem, policy).value);
    }
    expect(solveOptimum(problem).value).toBeCloseTo(best, 10);
  });

  it("respects a max daily change and loses at most what the constraint costs", () => {
    const free = buildProblem(setup(), elastic);
    const limited = buildProblem(setup({ maxDailyChange: 0.2, initialPrice: 10 }), elastic);
    const opt = solveOptimum(limited);
    expect(opt.tracksPreviousPrice).toBe(true);
    expect(opt.value).toBeLessThanOrEqual(solveOptimum(free).value + 1e-9);
    const evaluation = evaluatePolicy(limited, opt.policy);
    expect(evaluation.violations).toBe(0);
    expect(evaluation.value).toBeCloseTo(opt.value, 8);
  });
});

describe("evaluatePolicy", () => {
  it.each([
    ["Poisson", POISSON],
    ["negative binomial", negativeBinomial(0.6)],
  ])("agrees with a seeded Monte Carlo simulation (%s demand)", (_name, law) => {
    const problem = buildProblem(setup(law), elastic);
    const policy = (day: number, stock: number) => (stock < 20 - day ? 6 : 3);
    const exact = evaluatePolicy(problem, policy).value;
    const rng = seedrandom("mc");
    const runs = 4000;
    let sum = 0;
    let sumSq = 0;
    for (let r = 0; r < runs; r++) {
      let stock = problem.stock!;
      let margin = 0;
      for (let t = 0; t < problem.horizon; t++) {
        const a = policy(t, stock);
        const sold = Math.min(stock, sampleDemand(rng, problem, problem.rate(t, a)));
        stock -= sold;
        margin += sold * (problem.prices[a]! - problem.unitCost);
      }
      sum += margin;
      sumSq += margin * margin;
    }
    const mean = sum / runs;
    const se = Math.sqrt((sumSq / runs - mean * mean) / runs);
    expect(Math.abs(mean - exact)).toBeLessThan(4 * se);
  });

  it("values over-dispersed demand below Poisson demand of the same mean with tight stock, and the DP knows it", () => {
    const poisson = buildProblem(setup(), elastic);
    const spread = buildProblem(setup(negativeBinomial(0.6)), elastic);
    const optimum = solveOptimum(spread);
    expect(evaluatePolicy(spread, optimum.policy).value).toBeCloseTo(optimum.value, 8);
    // The same prices sell less where demand swings more: some days' demand is lost to the stock running out.
    const poissonPolicy = solveOptimum(poisson).policy;
    expect(evaluatePolicy(spread, poissonPolicy).value).toBeLessThan(
      evaluatePolicy(poisson, poissonPolicy).value,
    );
    // The DP on the true law beats the policy solved for the wrong one.
    expect(optimum.value).toBeGreaterThanOrEqual(evaluatePolicy(spread, poissonPolicy).value - 1e-9);
  });

  it("counts and repairs illegal actions", () => {
    const problem = buildProblem(setup({ maxDailyChange: 0.2, initialPrice: 10 }), elastic);
    const evaluation = evaluatePolicy(problem, () => problem.prices.length - 1);
    expect(evaluation.violations).toBeGreaterThan(0);
    const shutoff = evaluatePolicy(buildProblem(setup(), elastic), () => SHUTOFF);
    // One per reachable (day, stock) state: at least one a day.
    expect(shutoff.violations).toBeGreaterThanOrEqual(20);
  });
});

describe("property: every solver's price lies in the guardrails and respects the max daily change", () => {
  const problemArb = fc.record({
    horizon: fc.integer({ min: 1, max: 12 }),
    stock: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
    limit: fc.option(fc.constantFrom(0.05, 0.1, 0.2), { nil: null }),
    elasticity: fc.double({ min: 0.2, max: 4, noNaN: true }),
    base: fc.double({ min: 0.1, max: 8, noNaN: true }),
    cost: fc.double({ min: 0, max: 9, noNaN: true }),
    bernoulli: fc.boolean(),
    shutoff: fc.boolean(),
  });
  it("holds for dp and best_constant on random problems", () => {
    fc.assert(
      fc.property(problemArb, (g) => {
        const prices = Array.from({ length: 17 }, (_, i) => Math.round((8 + 0.4 * i) * 100) / 100);
        const problem = buildProblem(
          setup({
            horizon: g.horizon,
            stock: g.stock,
            prices,
            minPrice: 8,
            maxPrice: 14.4,
            unitCost: g.cost,
            maxDailyChange: g.limit,
            initialPrice: g.limit === null ? null : 11,
            shutoff: g.shutoff,
            distribution: g.bernoulli ? "bernoulli" : "poisson",
          }),
          (_d, p) => g.base * (p / 11) ** -g.elasticity,
        );
        const optimum = solveOptimum(problem);
        const constant = bestConstantPolicy(problem);
        expect(optimum.value).toBeLessThanOrEqual(lpBound(problem).value + 1e-6 * (1 + optimum.value));
        expect(constant.value).toBeLessThanOrEqual(optimum.value + 1e-6 * (1 + optimum.value));
        for (const policy of [optimum.policy, constant.policy]) {
          const evaluation = evaluatePolicy(problem, policy);
          expect(evaluation.violations).toBe(0);
          // Walk the states the policy itself reaches and check each price directly.
          let prev = -1;
          for (let t = 0; t < problem.horizon; t++) {
            const a = policy(t, problem.stock ?? Number.POSITIVE_INFINITY, prev);
            if (a === SHUTOFF) continue;
            const { lo, hi } = allowedRange(problem, prev);
            expect(a).toBeGreaterThanOrEqual(lo);
            expect(a).toBeLessThanOrEqual(hi);
            expect(problem.prices[a]!).toBeGreaterThanOrEqual(problem.minPrice);
            expect(problem.prices[a]!).toBeLessThanOrEqual(problem.maxPrice);
            prev = a;
          }
        }
        expect(constantPricePolicy(problem, 0)).toBeTypeOf("function");
      }),
      { numRuns: 60, seed: 42 },
    );
  });
});
