/**
 * Closed-loop benchmark: each policy plays the season day by day on markets with known true demand (prices served
 * through the engine's plan, sales drawn from the truth, the history growing), scored against the clairvoyant
 * optimum (the season's expected value under the true model).
 *
 *   pnpm bench:closed-loop [--quick] [--suite default|ferreira|real|nb[,...]] [--scenario FILE ...] [--only NAME,...]
 *                          [--policy NAME,...] [--seeds N] [--json FILE] [--endings .99]
 *
 * `--suite ferreira` is the acceptance run on Ferreira's market (T 100/500/1000, alpha .25/.5, 200 seeds);
 * `--suite real` the five markets shaped from Complete Journey products (10 seeds); `--suite nb` the narrow-history
 * markets with negative binomial noise (10 seeds); `--suite default,real` plays both (the larger seed count; the
 * smoke's Ferreira and cheese runs). `--endings .99,.49` plays every
 * market with those price endings (DESIGN §11: grids and history hold only printable prices; a product with its own
 * price list keeps it), scored against the exact optimum on its printable grid.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { generateMarket, problemFromTruth, solveOptimum } from "@pricing/engine";
import {
  type ClosedLoopPolicy,
  closedLoopPolicy,
  offlinePolicy,
  releaseTrained,
  rulePolicy,
  tsUpdatePolicy,
} from "./closed-loop-policies.js";
import {
  type LoopScenarioResult,
  type PolicySeasons,
  renderLoopTable,
  toLoopJson,
} from "./closed-loop-report.js";
import { playSeason } from "./closed-loop-sim.js";
import {
  ferreiraSuite,
  type LoopScenario,
  misspecifiedSuite,
  narrowNbSuite,
  narrowSuite,
  realSuite,
} from "./closed-loop-suites.js";
import { loadScenarioFile } from "./scenario-file.js";

function suiteOf(name: string, quick: boolean): { scenarios: LoopScenario[]; seeds: number } {
  if (name === "ferreira") return { scenarios: ferreiraSuite([100, 500, 1000]), seeds: 200 };
  if (name === "real") return { scenarios: realSuite(), seeds: quick ? 3 : 10 };
  if (name === "nb") return { scenarios: narrowNbSuite(quick), seeds: quick ? 3 : 10 };
  if (name !== "default") throw new Error(`unknown suite ${name}; known: default, ferreira, real, nb`);
  return {
    scenarios: [...ferreiraSuite(quick ? [100] : [100, 500]), ...narrowSuite(quick), ...misspecifiedSuite()],
    seeds: quick ? 3 : 10,
  };
}

async function runScenario(
  entry: LoopScenario,
  policies: readonly ClosedLoopPolicy[],
  seeds: number,
  quick: boolean,
): Promise<LoopScenarioResult> {
  const market = generateMarket(entry.scenario);
  const history = entry.fromHistory ? market.history : [];
  const optimum = market.products.reduce(
    (a, p) => a + solveOptimum(problemFromTruth(p.truth, p.setup)).value,
    0,
  );
  const rows: PolicySeasons[] = [];
  for (const policy of policies) {
    const started = performance.now();
    await policy.prepare?.(market, history, quick);
    const values: number[] = [];
    let violations = 0;
    let calibrated = 0;
    let inside = 0;
    let expectedInside = 0;
    let trueLawInside = 0;
    for (let seed = 1; seed <= seeds; seed++) {
      const outcome = playSeason(market, policy.season(market, seed), seed, history);
      values.push(outcome.value);
      violations += outcome.violations;
      calibrated += outcome.calibrated;
      inside += outcome.inside;
      expectedInside += outcome.expectedInside;
      trueLawInside += outcome.trueLawInside;
    }
    rows.push({
      policy: policy.name,
      values,
      violations,
      calibrated,
      inside,
      expectedInside,
      trueLawInside,
      seconds: (performance.now() - started) / 1000,
    });
  }
  await releaseTrained(market);
  return { scenario: market.scenario.name, optimum, seeds, policies: rows };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      suite: { type: "string", default: "default" },
      scenario: { type: "string", multiple: true },
      only: { type: "string", multiple: true },
      policy: { type: "string", multiple: true },
      seeds: { type: "string" },
      json: { type: "string" },
      endings: { type: "string", default: "none" },
    },
  });
  const endings = values.endings === "none" ? [] : (values.endings ?? "").split(",");
  const quick = values.quick ?? false;
  const suites = (values.suite ?? "default").split(",").map((name) => suiteOf(name, quick));
  const suite = {
    scenarios: suites.flatMap((s) => s.scenarios),
    seeds: Math.max(...suites.map((s) => s.seeds)),
  };
  const loaded = values.scenario?.length
    ? values.scenario.flatMap(loadScenarioFile).map((scenario) => ({ scenario, fromHistory: true }))
    : suite.scenarios;
  const onlyNames = values.only?.flatMap((n) => n.split(","));
  const missing = onlyNames?.filter((n) => !loaded.some((s) => s.scenario.name === n)) ?? [];
  if (missing.length > 0) {
    throw new Error(
      `unknown scenario ${missing.join(", ")}; known: ${loaded.map((s) => s.scenario.name).join(", ")}`,
    );
  }
  const scenarios = (onlyNames ? loaded.filter((s) => onlyNames.includes(s.scenario.name)) : loaded).map(
    (s) => (endings.length === 0 ? s : { ...s, scenario: { ...s.scenario, price_endings: endings } }),
  );
  const all: ClosedLoopPolicy[] = [
    rulePolicy,
    offlinePolicy(),
    closedLoopPolicy("closed_loop"),
    tsUpdatePolicy,
    // Run only when named: what caution costs, and no limit at all.
    closedLoopPolicy("closed_loop_free", "free"),
    closedLoopPolicy("closed_loop_off", "off"),
    closedLoopPolicy("closed_loop_catalog_grid", "cautious", false),
  ];
  const defaults = new Set(["rule", "offline", "closed_loop", "ts_update"]);
  const only = values.policy?.flatMap((p) => p.split(","));
  const unknown = only?.filter((name) => !all.some((p) => p.name === name)) ?? [];
  if (unknown.length > 0) {
    throw new Error(`unknown policy ${unknown.join(", ")}; known: ${all.map((p) => p.name).join(", ")}`);
  }
  const policies = all.filter((p) => (only ? only.includes(p.name) : defaults.has(p.name)));
  const seeds = values.seeds === undefined ? suite.seeds : Number.parseInt(values.seeds, 10);
  if (!(seeds >= 1)) throw new Error("--seeds must be a positive integer");
  const started = performance.now();
  const results: LoopScenarioResult[] = [];
  for (const entry of scenarios) {
    results.push(await runScenario(entry, policies, seeds, quick));
    process.stderr.write(
      `${entry.scenario.name}: done at ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
  console.log(renderLoopTable(results));
  console.log(
    `\n${results.length} scenarios, ${policies.length} policies, closed_loop priced by runPlanJob, refitted daily, ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s total${quick ? " (quick)" : ""}` +
      (endings.length === 0 ? "" : `, price endings ${endings.join(",")}`),
  );
  if (values.json) writeFileSync(values.json, `${JSON.stringify(toLoopJson(results), null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
