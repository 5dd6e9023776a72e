import { meanWithCi95 } from "./confidence-interval.js";
import { markdownTable } from "./markdown-table.js";

export interface PolicySeasons {
  readonly policy: string;
  /** Realised value per seed. */
  readonly values: readonly number[];
  readonly violations: number;
  readonly calibrated: number;
  readonly inside: number;
  /** `SeasonOutcome.expectedInside` summed over the seeds. */
  readonly expectedInside: number;
  /** `SeasonOutcome.trueLawInside` summed over the seeds. */
  readonly trueLawInside: number;
  readonly seconds: number;
}

export interface LoopScenarioResult {
  readonly scenario: string;
  readonly optimum: number;
  readonly seeds: number;
  readonly policies: readonly PolicySeasons[];
}

export interface LoopJson {
  scenarios: {
    scenario: string;
    optimum: number;
    seeds: number;
    policies: {
      policy: string;
      mean_value: number;
      pct_of_optimum: number;
      ci95_pct: [number, number];
      guardrail_violations: number;
      /** Mean paired difference to the rule over the same seeds (same sales draws), pp of the optimum, with its 95 % CI. */
      vs_rule_pp: [number, number, number] | null;
      /** Share of product-days with realised units inside [p10, p90], null when the policy gives none. */
      p10_p90_coverage: number | null;
      /** The days' probability of landing inside [p10, p90] under the true demand, averaged: the coverage without the draws' noise. */
      p10_p90_expected_coverage: number | null;
      /** The same for the band of the true demand itself on those days: the floor whole units put under the coverage. */
      p10_p90_true_law_coverage: number | null;
      seconds: number;
    }[];
  }[];
}

const r2 = (x: number) => Math.round(x * 100) / 100;

export function toLoopJson(results: readonly LoopScenarioResult[]): LoopJson {
  return {
    scenarios: results.map((s) => ({
      scenario: s.scenario,
      optimum: r2(s.optimum),
      seeds: s.seeds,
      policies: s.policies.map((p) => {
        const pct = meanWithCi95(p.values.map((v) => (100 * v) / s.optimum));
        const rule = s.policies.find((q) => q.policy === "rule");
        const diff =
          rule === undefined
            ? null
            : meanWithCi95(p.values.map((v, i) => (100 * (v - (rule.values[i] ?? Number.NaN))) / s.optimum));
        return {
          policy: p.policy,
          mean_value: r2(p.values.reduce((a, b) => a + b, 0) / p.values.length),
          pct_of_optimum: r2(pct.mean),
          ci95_pct: [r2(pct.mean - pct.half), r2(pct.mean + pct.half)],
          guardrail_violations: p.violations,
          vs_rule_pp:
            diff === null ? null : [r2(diff.mean), r2(diff.mean - diff.half), r2(diff.mean + diff.half)],
          p10_p90_coverage:
            p.calibrated === 0 ? null : Math.round((10_000 * p.inside) / p.calibrated) / 10_000,
          p10_p90_expected_coverage:
            p.calibrated === 0 ? null : Math.round((10_000 * p.expectedInside) / p.calibrated) / 10_000,
          p10_p90_true_law_coverage:
            p.calibrated === 0 ? null : Math.round((10_000 * p.trueLawInside) / p.calibrated) / 10_000,
          seconds: r2(p.seconds),
        };
      }),
    })),
  };
}

export function renderLoopTable(results: readonly LoopScenarioResult[]): string {
  const rows = toLoopJson(results).scenarios.flatMap((s) =>
    s.policies.map((p, i) => [
      i === 0 ? s.scenario : "",
      i === 0 ? s.optimum.toFixed(2) : "",
      i === 0 ? String(s.seeds) : "",
      p.policy,
      p.mean_value.toFixed(2),
      p.pct_of_optimum.toFixed(2),
      `${p.ci95_pct[0].toFixed(2)} .. ${p.ci95_pct[1].toFixed(2)}`,
      p.vs_rule_pp === null
        ? ""
        : `${p.vs_rule_pp[0].toFixed(2)} (${p.vs_rule_pp[1].toFixed(2)} .. ${p.vs_rule_pp[2].toFixed(2)})`,
      String(p.guardrail_violations),
      p.p10_p90_coverage === null ? "" : `${(100 * p.p10_p90_coverage).toFixed(1)} %`,
      p.p10_p90_expected_coverage === null ? "" : `${(100 * p.p10_p90_expected_coverage).toFixed(1)} %`,
      p.p10_p90_true_law_coverage === null ? "" : `${(100 * p.p10_p90_true_law_coverage).toFixed(1)} %`,
      p.seconds.toFixed(1),
    ]),
  );
  return markdownTable(
    [
      "scenario",
      "optimum",
      "seeds",
      "policy",
      "mean value",
      "% opt",
      "95 % CI",
      "vs rule pp (95 % CI)",
      "viol",
      "in p10-p90",
      "expected",
      "true-law band",
      "s",
    ],
    rows,
  );
}
