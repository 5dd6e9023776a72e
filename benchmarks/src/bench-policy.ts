/**
 * Policy benchmark: every runner's exact expected margin under the true demand of known markets, against the
 * exact optimum and the LP bound.
 *
 *   pnpm bench:policy [--quick] [--scenario FILE ...] [--only NAME,...] [--json FILE] [--dump-policy DIR]
 *                     [--policy NAME ...] [--endings .99] [--printable-policy NAME,...]
 *
 * Then the printable table (DESIGN §11): each scenario again with its catalogue grids restricted to `--endings`
 * (default .99), the exact optimum on that printable grid against the unconstrained one, and the
 * `--printable-policy` runners (default dp_on_estimate, rule, rl and rl_cautious) trained and scored on it; `--endings
 * none` skips it. The gate of DESIGN §11 is each runner's cost beyond the endings' floor: the floor (the exact
 * optimum on the printable grid against the unconstrained one) is what no printable policy inside the guardrails
 * avoids, e.g. an optimum on an unprintable guardrail (unlimited-stock: 10.00, the nearest .99 inside is 10.99).
 * `--only` keeps the scenarios (built-in or from files) with these names.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { builtinScenarios } from "@pricing/engine";
import { baselineRunners } from "./baseline-runners.js";
import { runScenario, type ScenarioResult } from "./policy-bench.js";
import { dumpPolicies, fmt, renderTable, toJson } from "./policy-report.js";
import type { PolicyRunner } from "./policy-runner.js";
import { type PrintableResult, printableScenario, renderPrintableTable } from "./printable-prices.js";
import { rlRunners } from "./rl-runners.js";
import { loadScenarioFile } from "./scenario-file.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      scenario: { type: "string", multiple: true },
      json: { type: "string" },
      "dump-policy": { type: "string" },
      policy: { type: "string", multiple: true },
      only: { type: "string", multiple: true },
      endings: { type: "string", default: ".99" },
      "printable-policy": { type: "string", default: "dp_on_estimate,rule,rl,rl_cautious" },
    },
  });
  const quick = values.quick ?? false;
  const loaded = values.scenario?.length
    ? values.scenario.flatMap(loadScenarioFile)
    : builtinScenarios({ quick });
  const onlyNames = values.only?.flatMap((n) => n.split(","));
  const missing = onlyNames?.filter((n) => !loaded.some((s) => s.name === n)) ?? [];
  if (missing.length > 0) {
    throw new Error(`unknown scenario ${missing.join(", ")}; known: ${loaded.map((s) => s.name).join(", ")}`);
  }
  const scenarios = onlyNames ? loaded.filter((s) => onlyNames.includes(s.name)) : loaded;
  const all: PolicyRunner[] = [...baselineRunners, ...rlRunners];
  const only = values.policy?.flatMap((p) => p.split(","));
  const unknown = only?.filter((name) => !all.some((r) => r.name === name)) ?? [];
  if (unknown.length > 0) {
    throw new Error(`unknown policy ${unknown.join(", ")}; known: ${all.map((r) => r.name).join(", ")}`);
  }
  const runners = only ? all.filter((r) => only.includes(r.name)) : all;
  const started = performance.now();
  const results: ScenarioResult[] = [];
  for (const s of scenarios) {
    const result = await runScenario(s, runners, { quick });
    results.push(result);
    process.stderr.write(
      `${result.scenario}: done at ${fmt((performance.now() - started) / 1000, 1)} s ` +
        `(fit ${fmt(result.fitSeconds, 3)} s, optimum ${fmt(result.optimumSeconds, 2)} s)\n`,
    );
  }
  console.log(renderTable(results));
  const violations = results.reduce((a, r) => a + r.rows.reduce((b, row) => b + row.violations, 0), 0);
  console.log(
    `\n${results.length} scenarios, ${runners.length} policies, ${violations} guardrail violations, ` +
      `${fmt((performance.now() - started) / 1000, 1)} s total${quick ? " (quick)" : ""}`,
  );
  const endings = values.endings === "none" ? [] : (values.endings ?? ".99").split(",");
  if (endings.length > 0) {
    const names = (values["printable-policy"] ?? "").split(",");
    const chosen = all.filter((r) => names.includes(r.name));
    const printable: PrintableResult[] = [];
    for (const [i, s] of scenarios.entries()) {
      const freePct = new Map((results[i]?.rows ?? []).map((r) => [r.policy, r.pctOfOptimum]));
      printable.push(await printableScenario(s, chosen, { quick, endings, freePct }));
    }
    console.log(`\nPrintable prices (${endings.join(", ")} endings):\n`);
    console.log(renderPrintableTable(printable));
    const floor = printable.reduce((a, r) => (r.costPp > a.costPp ? r : a));
    console.log(
      `\nlargest endings' floor (printable optimum against the optimum): ${fmt(floor.costPp, 3)} pp (${floor.scenario})`,
    );
    const beyond = printable.flatMap((r) =>
      r.rows.flatMap((row) => (row.beyondFloorPp === null ? [] : [{ scenario: r.scenario, ...row }])),
    );
    if (beyond.length > 0) {
      const worst = beyond.reduce((a, r) => ((r.beyondFloorPp ?? 0) > (a.beyondFloorPp ?? 0) ? r : a));
      console.log(
        `largest cost of printable prices beyond the floor: ${fmt(worst.beyondFloorPp ?? 0, 3)} pp ` +
          `(${worst.policy}, ${worst.scenario}; target <= 1 pp)`,
      );
    }
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify(toJson(results), null, 2)}\n`);
  const dumpDir = values["dump-policy"];
  if (dumpDir) {
    const files = results.flatMap((r) => dumpPolicies(dumpDir, r));
    console.log(`dumped ${files.length} policies to ${dumpDir}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
