import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { builtinScenarios, evaluatePolicy, SHUTOFF } from "@pricing/engine";
import { afterAll, describe, expect, it } from "vitest";
import { baselineRunners } from "./baseline-runners.js";
import { runScenario } from "./policy-bench.js";
import { dumpPolicies, renderTable, toJson } from "./policy-report.js";

const dir = mkdtempSync(path.join(tmpdir(), "dump-policy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("policy benchmark report", () => {
  it("dumps every policy as a (day, stock) price table that evaluates to the benchmark's value", async () => {
    const scenario = builtinScenarios().find((s) => s.name === "bernoulli-shutoff")!;
    const result = await runScenario(scenario, baselineRunners, { quick: true });
    const files = dumpPolicies(dir, result);
    expect(files.map((f) => path.basename(f)).sort()).toEqual([
      "best_constant.json",
      "dp_on_estimate.json",
      "rule.json",
    ]);
    const truth = result.context.products[0]!.truth;
    for (const file of files) {
      const dump = JSON.parse(readFileSync(file, "utf8")) as { policy: string; price: (number | null)[][] };
      // Re-evaluate from the dumped prices alone.
      const fromTable = evaluatePolicy(truth, (day, stock) => {
        const price = dump.price[day]![stock];
        return price === null || price === undefined ? SHUTOFF : truth.prices.indexOf(price);
      });
      const row = result.rows.find((r) => r.policy === dump.policy)!;
      expect(fromTable.violations).toBe(0);
      expect(fromTable.value).toBeCloseTo(row.value, 8);
    }
    const table = renderTable([result]);
    expect(table).toContain("dp_on_estimate");
    expect(table.split("\n")).toHaveLength(2 + baselineRunners.length);
    const json = toJson([result]) as { scenarios: { optimum: number; policies: unknown[] }[] };
    expect(json.scenarios[0]!.optimum).toBeCloseTo(1001.54, 2);
    expect(json.scenarios[0]!.policies).toHaveLength(3);
  });

  it("does not dump multi-product or max-daily-change scenarios", async () => {
    const scenario = builtinScenarios().find((s) => s.name === "max-daily-change")!;
    const result = await runScenario(scenario, baselineRunners.slice(0, 1), { quick: true });
    expect(dumpPolicies(dir, result)).toEqual([]);
  });
});
