import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { markdownTable } from "./markdown-table.js";
import type { ScenarioResult } from "./policy-bench.js";

export const fmt = (x: number, digits = 2): string =>
  x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function renderTable(results: readonly ScenarioResult[]): string {
  const extraKeys = [...new Set(results.flatMap((r) => r.rows.flatMap((row) => Object.keys(row.extra))))];
  const header = [
    "scenario",
    "n",
    "optimum",
    "LP bound",
    "policy",
    "value",
    "% opt",
    "% dp_est",
    "viol",
    "e fit/true",
    "train s",
    "s",
    ...extraKeys,
  ];
  const lines: string[][] = [];
  for (const r of results) {
    for (const row of r.rows) {
      lines.push([
        r.scenario,
        String(r.products),
        fmt(r.optimum),
        r.lpBound === null ? "-" : fmt(r.lpBound),
        row.policy,
        fmt(row.value),
        fmt(row.pctOfOptimum, 1),
        row.pctOfDpOnEstimate === null ? "-" : fmt(row.pctOfDpOnEstimate, 1),
        String(row.violations),
        r.products === 1
          ? `${fmt(r.fittedElasticity)}/${fmt(r.trueElasticity)}`
          : `mae ${fmt(r.elasticityMae)}`,
        fmt(row.trainingSeconds, 2),
        fmt(row.seconds, 2),
        ...extraKeys.map((k) => {
          const v = row.extra[k];
          return v === undefined ? "" : typeof v === "number" ? fmt(v, Number.isInteger(v) ? 0 : 3) : v;
        }),
      ]);
    }
  }
  return markdownTable(header, lines);
}

export function toJson(results: readonly ScenarioResult[]): unknown {
  return {
    scenarios: results.map((r) => ({
      scenario: r.scenario,
      products: r.products,
      optimum: r.optimum,
      lp_bound: r.lpBound,
      fitted_elasticity: r.fittedElasticity,
      true_elasticity: r.trueElasticity,
      elasticity_mae: r.elasticityMae,
      fit_seconds: r.fitSeconds,
      optimum_seconds: r.optimumSeconds,
      policies: r.rows.map((row) => ({
        policy: row.policy,
        value: row.value,
        pct_of_optimum: row.pctOfOptimum,
        pct_of_dp_on_estimate: row.pctOfDpOnEstimate,
        guardrail_violations: row.violations,
        training_seconds: row.trainingSeconds,
        seconds: row.seconds,
        extra: row.extra,
      })),
    })),
  };
}

/**
 * For single-product scenarios without a max daily change: each policy's price for every (day, stock left), so
 * the policy can be evaluated independently (null = shutoff). Unlimited stock gives one price per day.
 */
export function dumpPolicies(dir: string, r: ScenarioResult): string[] {
  const written: string[] = [];
  const product = r.context.products[0];
  if (r.products !== 1 || !product || product.truth.maxDailyChange !== null) return written;
  const problem = product.truth;
  mkdirSync(path.join(dir, r.scenario), { recursive: true });
  for (const [name, byProduct] of r.policies) {
    const policy = byProduct.get(problem.productId);
    if (!policy) continue;
    const priceOf = (a: number): number | null => (a < 0 ? null : (problem.prices[a] ?? null));
    const table =
      problem.stock === null
        ? Array.from({ length: problem.horizon }, (_, t) => [
            priceOf(policy(t, Number.POSITIVE_INFINITY, -1)),
          ])
        : Array.from({ length: problem.horizon }, (_, t) =>
            Array.from({ length: problem.stock! + 1 }, (_, s) => priceOf(policy(t, s, -1))),
          );
    const file = path.join(dir, r.scenario, `${name}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({
        scenario: r.scenario,
        policy: name,
        product_id: problem.productId,
        start_date: problem.startDate,
        horizon: problem.horizon,
        stock: problem.stock,
        unit_cost: problem.unitCost,
        distribution: problem.distribution,
        grid: problem.prices,
        layout: problem.stock === null ? "price[day][0]" : "price[day][stock_left], null = shutoff",
        price: table,
      })}\n`,
    );
    written.push(file);
  }
  return written;
}
