import { builtinScenarios, type ScenarioInput } from "@pricing/engine";
import { loadScenarioFile } from "./scenario-file.js";

/** A scenario of the closed loop: the market and whether the season starts from its history or from nothing. */
export interface LoopScenario {
  readonly scenario: ScenarioInput;
  readonly fromHistory: boolean;
}

/** Markets whose true demand is outside the fitted family, seen through history within +-10 % of the base price. */
export const MISSPECIFIED_FILE = new URL("./scenarios/misspecified.json", import.meta.url).pathname;

/**
 * Ferreira, Simchi-Levi & Wang's market (the built-in `bernoulli-shutoff`) at inventory alpha x T, learnt from no
 * history.
 */
export function ferreiraSuite(
  horizons: readonly number[],
  alphas: readonly number[] = [0.25, 0.5],
): LoopScenario[] {
  const base = builtinScenarios({ quick: false }).find((s) => s.name === "bernoulli-shutoff");
  const product = base?.products?.[0];
  if (base === undefined || product === undefined) throw new Error("no bernoulli-shutoff scenario");
  return alphas.flatMap((alpha) =>
    horizons.map((horizon) => ({
      scenario: {
        ...base,
        name: `ferreira-a${alpha}-T${horizon}`,
        horizon,
        history: { days: 0 },
        products: [{ ...product, stock: Math.round(alpha * horizon) }],
      },
      fromHistory: false,
    })),
  );
}

/** The built-in markets with a narrow (+-10 % or less) history, but Ferreira's and the 100-product company. */
export function narrowSuite(quick: boolean): LoopScenario[] {
  const skip = new Set(["bernoulli-shutoff", "company-100", "company-30"]);
  return builtinScenarios({ quick })
    .filter((s) => !skip.has(s.name))
    .map((scenario) => ({ scenario, fromHistory: true }));
}

/**
 * NB2 alpha of the over-dispersed variants: about the median the demand fit finds on the Complete Journey fixture's
 * 30 products (0.05-0.9, half below 0.15).
 */
export const NB_OVERDISPERSION = 0.15;

/**
 * The narrow-history markets again with negative binomial noise (variance rate + alpha rate^2) in their history and
 * their season: what real daily sales look like, where the band must still hold 75-85 % of the days.
 */
export function narrowNbSuite(quick: boolean): LoopScenario[] {
  return narrowSuite(quick).map(({ scenario, fromHistory }) => ({
    scenario: {
      ...scenario,
      name: `${scenario.name}-nb`,
      description: `${scenario.description ?? scenario.name}; NB2 noise, alpha ${NB_OVERDISPERSION}`,
      distribution: "negative_binomial",
      products: scenario.products?.map((p) => ({
        ...p,
        demand: { ...p.demand, overdispersion: NB_OVERDISPERSION },
      })),
    },
    fromHistory,
  }));
}

/**
 * Five markets shaped from real Complete Journey products (`pnpm scenarios:complete-journey`): their fitted
 * elasticity inside the band their history saw and another shape outside it, NB2 noise, their weekday profile,
 * their real price path through the history and their real level from January to December.
 */
export const COMPLETE_JOURNEY_FILE = new URL("./scenarios/complete-journey.json", import.meta.url).pathname;

export function realSuite(): LoopScenario[] {
  return loadScenarioFile(COMPLETE_JOURNEY_FILE).map((scenario) => ({ scenario, fromHistory: true }));
}

export function misspecifiedSuite(): LoopScenario[] {
  return loadScenarioFile(MISSPECIFIED_FILE).map((scenario) => ({ scenario, fromHistory: true }));
}
