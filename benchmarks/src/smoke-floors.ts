/**
 * The quality floors of `pnpm bench:smoke`: deterministic figures (seeded markets, step-counted training, fixed
 * data) that the smoke sizes of the benchmarks write to their `--json`, each with the bound it must hold and why.
 * Each bound is the figure measured at the smoke size minus a margin (plus, for figures where lower is better).
 *
 * A floor changes only with a reason in the commit that changes it: the figure moved because the engine changed on
 * purpose (say how much and why), never to make a red smoke green.
 */

/** A step of a path into a benchmark's JSON: an object key, or the first array element whose fields match. */
export type FigureStep = string | Readonly<Record<string, string>>;

export interface SmokeFloor {
  /** The entry (`bench-entries.ts`) whose JSON holds the figure. */
  bench: string;
  /** What the figure is, as the smoke prints it. */
  figure: string;
  path: readonly FigureStep[];
  /** The figure must be at least this (quality: higher is better)... */
  atLeast?: number;
  /** ...or at most this (an error: lower is better). */
  atMost?: number;
  /** Why this bound: what was measured, and what falling past it would mean. */
  reason: string;
}

const policyPct = (scenario: string, policy: string): FigureStep[] => [
  "scenarios",
  { scenario },
  "policies",
  { policy },
  "pct_of_optimum",
];
const loop = (scenario: string, policy: string, figure: string): FigureStep[] => [
  "scenarios",
  { scenario },
  "policies",
  { policy },
  figure,
];
const real = (split: string, refit: string, figure: string): FigureStep[] => [
  "rows",
  { split, refit },
  "engine",
  figure,
];

export const SMOKE_FLOORS: readonly SmokeFloor[] = [
  {
    bench: "bench:policy",
    figure: "loose-stock rl % of optimum",
    path: policyPct("loose-stock", "rl"),
    atLeast: 99.5,
    reason:
      "99.93 measured: the quick training (step-counted) paces the stock; a twelfth of its steps scored 99.4, " +
      "and issue 24 holds training changes to 0.3 pp",
  },
  {
    bench: "bench:policy",
    figure: "loose-stock rule % of optimum",
    path: policyPct("loose-stock", "rule"),
    atLeast: 85,
    reason: "85.86 measured: the rule is every product's fallback; it moves only when the rule does",
  },
  {
    bench: "bench:policy",
    figure: "loose-stock dp_on_estimate % of optimum",
    path: policyPct("loose-stock", "dp_on_estimate"),
    atLeast: 99.5,
    reason: "99.98 measured: the exact DP on the fitted demand; a drop means the demand fit got worse",
  },
  {
    bench: "bench:closed-loop",
    figure: "ferreira-a0.5-T100 closed_loop % of optimum",
    path: loop("ferreira-a0.5-T100", "closed_loop", "pct_of_optimum"),
    atLeast: 95,
    reason: "98.35 measured (2 seeds): the production default learning from no history on Ferreira's market",
  },
  {
    bench: "bench:closed-loop",
    figure: "ferreira-a0.5-T100 closed_loop p10-p90 coverage",
    path: loop("ferreira-a0.5-T100", "closed_loop", "p10_p90_coverage"),
    atLeast: 0.9,
    reason: "0.99 measured: the served band's calibration (0/1 sales: p10 0, p90 1 nearly always)",
  },
  {
    bench: "bench:closed-loop",
    figure: "cj-5569230 closed_loop - rule (pp)",
    path: [...loop("cj-5569230", "closed_loop", "vs_rule_pp"), "0"],
    atLeast: 3,
    reason:
      "+5.32 measured (2 seeds; +4.98 over 10): on the real suite's soft drinks the learner charges the fitted " +
      "curve's price where each price's own weeks, confounded by the moving level, mislead it; +0.60 on the same " +
      "seeds with the guard's fallback at the rule's price (90 % of the optimum), before b1ea24b",
  },
  {
    bench: "bench:real",
    figure: "Jul-Aug daily WAPE",
    path: real("Jul-Aug", "daily", "wape"),
    atMost: 0.45,
    reason:
      "0.402 measured (5 products, NB2 fit with the weekly level; 0.427 with the Poisson fit): the forecast error " +
      "on real sales, lower is better (the naive is ~0.56)",
  },
  {
    bench: "bench:real",
    figure: "Jul-Aug daily p10-p90 coverage",
    path: real("Jul-Aug", "daily", "coverage_p10_p90"),
    atLeast: 0.75,
    reason:
      "0.813 measured (5 products; 0.548 with the Poisson band): NB2 draws and the week's stray level made the " +
      "band honest on real sales, 75 % is issue 23's lower bound",
  },
  {
    bench: "bench:real",
    figure: "Jul-Aug daily p10-p90 coverage (not too wide)",
    path: real("Jul-Aug", "daily", "coverage_p10_p90"),
    atMost: 0.88,
    reason: "0.813 measured (5 products): a band far wider than its 80 % aim is as dishonest as a narrow one",
  },
  {
    bench: "bench:real",
    figure: "Nov-Dec daily p10-p90 coverage",
    path: real("Nov-Dec", "daily", "coverage_p10_p90"),
    atLeast: 0.72,
    reason:
      "0.787 measured (5 products): the holiday split, where the level moves most; below this the band stopped " +
      "following the season",
  },
];

/** The figure at `path` in `json`, or undefined when the path leads nowhere or to something else than a number. */
export function figureAt(json: unknown, path: readonly FigureStep[]): number | undefined {
  let at: unknown = json;
  for (const step of path) {
    if (typeof step === "string") {
      at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[step] : undefined;
    } else {
      at = Array.isArray(at)
        ? at.find(
            (item: unknown) =>
              typeof item === "object" &&
              item !== null &&
              Object.entries(step).every(([k, v]) => (item as Record<string, unknown>)[k] === v),
          )
        : undefined;
    }
  }
  return typeof at === "number" ? at : undefined;
}

export interface FloorCheck {
  floor: SmokeFloor;
  value: number | undefined;
  ok: boolean;
}

/** Every floor of `bench` against its run's JSON (undefined: the run wrote none); a figure missing fails. */
export function checkFloors(
  bench: string,
  json: unknown,
  floors: readonly SmokeFloor[] = SMOKE_FLOORS,
): FloorCheck[] {
  return floors
    .filter((floor) => floor.bench === bench)
    .map((floor) => {
      const value = figureAt(json, floor.path);
      const ok =
        value !== undefined &&
        (floor.atLeast === undefined || value >= floor.atLeast) &&
        (floor.atMost === undefined || value <= floor.atMost);
      return { floor, value, ok };
    });
}

/** The bound as printed: `>= 96` or `<= 0.5`. */
export function boundText(floor: SmokeFloor): string {
  return [
    floor.atLeast === undefined ? null : `>= ${floor.atLeast}`,
    floor.atMost === undefined ? null : `<= ${floor.atMost}`,
  ]
    .filter((t) => t !== null)
    .join(", ");
}
