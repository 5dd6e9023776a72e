import { generateMarket, problemFromTruth, type ScenarioInput, solveOptimum } from "@pricing/engine";
import { runScenario } from "./policy-bench.js";
import type { PolicyRunner } from "./policy-runner.js";

/**
 * What printable prices cost (DESIGN §11): the scenario's catalogue grids restricted to prices ending in
 * `endings` (products with their own grid keep it), the exact optimum on that printable grid against the optimum
 * on the unconstrained (minor-unit) grid, and each runner's policy trained and scored on the printable market.
 */
export interface PrintableResult {
  readonly scenario: string;
  readonly endings: readonly string[];
  /** Exact optimum on the unconstrained grid and on the printable grid (expected margin, summed over products). */
  readonly optimum: number;
  readonly printableOptimum: number;
  /** 100 x (optimum - printable optimum) / optimum: the margin the endings alone give up, in points. */
  readonly costPp: number;
  readonly rows: readonly {
    readonly policy: string;
    readonly pctOfPrintableOptimum: number;
    readonly pctOfOptimum: number;
    /** The same runner's % of the optimum on the unconstrained market less this: what printing cost it, in points. */
    readonly policyCostPp: number | null;
    /**
     * The same runner's % of the optimum on the unconstrained market less its % of the printable optimum here: what
     * printing cost it beyond the endings' floor (`costPp`, which no printable policy avoids), in points.
     */
    readonly beyondFloorPp: number | null;
    readonly violations: number;
  }[];
}

export async function printableScenario(
  input: ScenarioInput,
  runners: readonly PolicyRunner[],
  options: {
    quick: boolean;
    endings: readonly string[];
    /** Each runner's % of the optimum on the unconstrained market, where it was run there. */
    freePct: ReadonlyMap<string, number>;
  },
): Promise<PrintableResult> {
  const free = generateMarket(input);
  let optimum = 0;
  for (const p of free.products) optimum += solveOptimum(problemFromTruth(p.truth, p.setup)).value;
  const printable = await runScenario({ ...input, price_endings: [...options.endings] }, runners, {
    quick: options.quick,
  });
  return {
    scenario: printable.scenario,
    endings: options.endings,
    optimum,
    printableOptimum: printable.optimum,
    costPp: (100 * (optimum - printable.optimum)) / optimum,
    rows: printable.rows.map((r) => ({
      policy: r.policy,
      pctOfPrintableOptimum: r.pctOfOptimum,
      pctOfOptimum: (100 * r.value) / optimum,
      policyCostPp: (() => {
        const free = options.freePct.get(r.policy);
        return free === undefined ? null : free - (100 * r.value) / optimum;
      })(),
      beyondFloorPp: (() => {
        const free = options.freePct.get(r.policy);
        return free === undefined ? null : free - r.pctOfOptimum;
      })(),
      violations: r.violations,
    })),
  };
}

/** The markdown table of the printable runs. */
export function renderPrintableTable(results: readonly PrintableResult[]): string {
  const f = (x: number, d = 2) => x.toFixed(d);
  const lines = [
    `| scenario | endings | optimum | printable optimum | cost of printing (pp) | policy | % of printable optimum | % of optimum | policy's cost of printing (pp) | beyond the floor (pp) | violations |`,
    "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    for (const row of r.rows) {
      lines.push(
        `| ${r.scenario} | ${r.endings.join(",")} | ${f(r.optimum)} | ${f(r.printableOptimum)} | ${f(r.costPp, 3)} | ` +
          `${row.policy} | ${f(row.pctOfPrintableOptimum)} | ${f(row.pctOfOptimum)} | ` +
          `${row.policyCostPp === null ? "-" : f(row.policyCostPp, 3)} | ` +
          `${row.beyondFloorPp === null ? "-" : f(row.beyondFloorPp, 3)} | ${row.violations} |`,
      );
    }
  }
  return lines.join("\n");
}
