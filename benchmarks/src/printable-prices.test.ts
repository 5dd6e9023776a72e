import {
  builtinScenarios,
  generateMarket,
  isPrintable,
  priceFormat,
  printableAtOrAbove,
} from "@pricing/engine";
import { describe, expect, it } from "vitest";
import { baselineRunners } from "./baseline-runners.js";
import { runScenario } from "./policy-bench.js";
import { printableScenario } from "./printable-prices.js";

// DESIGN §11 in bench:policy: the unlimited-stock market's optimum is its lower guardrail (10.00 = c e / (e - 1) =
// half the reference price), which no .99 price reaches inside the guardrails. That cost is the endings' floor, not
// the engine's: the printable grid holds every printable price inside them, so its exact optimum is the best any
// printable policy does, and the gate is each policy's cost beyond it.
describe("printable prices on the unlimited-stock market (.99 endings)", () => {
  it("has a floor no printable policy avoids, and dp_on_estimate costs under 1 pp beyond it", async () => {
    const scenario = builtinScenarios().find((s) => s.name === "unlimited-stock");
    if (scenario === undefined) throw new Error("no unlimited-stock scenario");
    const free = generateMarket(scenario);
    const setup = free.products[0]?.setup;
    const printable = generateMarket({ ...scenario, price_endings: [".99"] }).products[0]?.setup;
    if (setup === undefined || printable === undefined) throw new Error("no product");
    const format = priceFormat(free.scenario.currency, [".99"]);
    const every: number[] = [];
    for (let p = printableAtOrAbove(format, setup.minPrice); p <= setup.maxPrice; ) {
      every.push(p);
      p = printableAtOrAbove(format, p + 0.01);
    }
    expect(printable.prices).toEqual(every);
    expect(isPrintable(format, setup.minPrice)).toBe(false);

    const unconstrained = await runScenario(scenario, baselineRunners, { quick: true });
    const result = await printableScenario(scenario, baselineRunners, {
      quick: true,
      endings: [".99"],
      freePct: new Map(unconstrained.rows.map((r) => [r.policy, r.pctOfOptimum])),
    });
    expect(result.costPp).toBeGreaterThan(1);
    const dp = result.rows.find((r) => r.policy === "dp_on_estimate");
    expect(dp?.beyondFloorPp).not.toBeNull();
    expect(dp?.beyondFloorPp).toBeLessThanOrEqual(1);
    for (const row of result.rows) expect(row.violations).toBe(0);
  });
});
