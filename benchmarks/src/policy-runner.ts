import type {
  FittedDemand,
  Market,
  MarketProduct,
  PricingProblem,
  ProductPolicy,
  ProductState,
  Scenario,
} from "@pricing/engine";

/** One product as a runner sees it. */
export interface RunnerProduct {
  readonly product: MarketProduct;
  /** The problem under the fitted demand: what a real deployment knows. */
  readonly estimate: PricingProblem;
  /**
   * The problem under the TRUE demand. Only for oracles and diagnostics: a policy that claims to be learned from
   * data must not read it (the benchmark evaluates every policy on it).
   */
  readonly truth: PricingProblem;
  /**
   * The product as the API's plan sees it on the start date, its rule parameters derived from its history
   * (`planPolicy` evaluates what the API serves).
   */
  readonly state: ProductState;
}

export interface RunnerContext {
  readonly scenario: Scenario;
  readonly market: Market;
  /** Demand fitted from `market.history` alone. */
  readonly fit: FittedDemand;
  readonly products: readonly RunnerProduct[];
  /** `--quick`: keep training light (the whole quick suite must finish in under a minute). */
  readonly quick: boolean;
  /** A seed for the runner's own random draws (derived from the scenario seed). */
  readonly seed: number;
}

export interface RunnerResult {
  /** A policy per product id; every product of the scenario must have one. */
  readonly policies: ReadonlyMap<string, ProductPolicy>;
  /** Seconds spent training (0 or absent for closed-form policies). */
  readonly trainingSeconds?: number;
  /** Extra columns for the table and JSON (e.g. episodes, loss); keys become column names. */
  readonly extra?: Readonly<Record<string, number | string>>;
}

/** A policy under benchmark: `rule`, `best_constant`, `dp_on_estimate`, `rl`, ... */
export interface PolicyRunner {
  readonly name: string;
  run(context: RunnerContext): RunnerResult | Promise<RunnerResult>;
}
