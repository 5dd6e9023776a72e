import { dayNumber, weekdayOf } from "../base/calendar.js";
import { roundToMinor } from "../base/currency.js";
import { insideGuardrailsOnly } from "../base/guardrails.js";
import { type FittedDemand, fitDemand, fittedRateOn } from "../demand/fit-demand.js";
import type { ActivePolicy, PlanAdvisor, PlannedPrice, PlannedPromotion } from "../plan/company-plan.js";
import { planPrices } from "../plan/company-plan.js";
import type { ProductState } from "../plan/product-state.js";
import { demandPmf, POISSON } from "../problem/sales-distribution.js";
import { leavesRange, priceRange } from "../sales/observed-range.js";
import { rowsByProduct, type SalesRow } from "../sales/sales-row.js";
import { type Exploration, explorationRange, type PriceDays } from "./exploration-range.js";
import { onlineLearner, unitsInterval } from "./online-learner.js";
import { parameterSd } from "./posterior-draws.js";

/**
 * A company's plan as the server makes it, in plain data (structured-cloneable but for `active`'s loaded policy):
 * the history is the one input the online learner, the exploration range and the demand fit are built from.
 */
export interface LearningPlanInput {
  readonly today: string;
  readonly startDate: string;
  readonly endDate: string;
  readonly products: readonly ProductState[];
  readonly active: ActivePolicy;
  /** Sales before `today`, every product's rows, sorted by date. */
  readonly history: readonly SalesRow[];
  readonly exploration: Exploration;
  /** Seeds the online learner's posterior draws, together with the product and date priced. */
  readonly seed: string;
  /**
   * The online learner prices every product it can (the closed loop's daily refit from `history`), under the active
   * policy's model id, or, where no model serves, from the rule's prices in the history (rows sourced `rule`); the
   * policy (capped by the exploration range) prices the rest. False: the policy or the rule alone, capped, each row
   * with its band (the kill switch passes the rule here).
   */
  readonly online: boolean;
  /** Adds `explanation` to every row (`PlanInput.explain`). */
  readonly explain?: boolean;
  /** The planned promotions of the plan's days (`PlanInput.promotions`); the learner prices with them too. */
  readonly promotions?: readonly PlannedPromotion[];
  /**
   * The prices each product can be charged at, where the partner keeps a price list (a market of a few price
   * points); default the catalogue grid. The server's catalogue has no price list and passes none; the closed-loop
   * benchmark passes its markets' own.
   */
  readonly priceLists?: Readonly<Record<string, readonly number[]>>;
}

/**
 * `planPrices` with the company's learning: the online learner where `online` (with or without a trained model: the
 * minimum history is the network's, the learner starts from whatever the rule sold at), every policy
 * price capped to the exploration range of what the product's history has seen (the jump guard: `off` stays inside
 * the prices sold at, `cautious` goes at most one grid price beyond those held for `SEEN_DAYS`, `free` trusts the
 * model), and every row's `expected_units_p10` / `_p90` and `exploratory`.
 */
export function planWithLearning(input: LearningPlanInput): PlannedPrice[] {
  const hints = input.products.map((p) => ({
    productId: p.product.product_id,
    referencePrice: p.product.base_price,
  }));
  const learner =
    input.online && input.history.length > 0
      ? onlineLearner({
          history: input.history,
          products: hints,
          exploration: input.exploration,
          seed: input.seed,
          ...(input.promotions === undefined ? {} : { promotions: input.promotions }),
          ...(input.active.modelId === null ? {} : { modelId: input.active.modelId }),
          ...(input.priceLists === undefined ? {} : { grids: new Map(Object.entries(input.priceLists)) }),
        })
      : undefined;
  let fit: FittedDemand | null | undefined = learner?.fit;
  const fitted = () => {
    if (fit === undefined) fit = input.history.length > 0 ? fitDemand(input.history, hints) : null;
    return fit;
  };
  return planPrices({
    today: input.today,
    startDate: input.startDate,
    endDate: input.endDate,
    products: input.products,
    active: input.active,
    fit: fitted,
    ...(learner === undefined ? {} : { learner }),
    advisor: explorationAdvisor(input.history, input.exploration, fitted),
    ...(input.explain ? { explain: true } : {}),
    ...(input.promotions === undefined ? {} : { promotions: input.promotions }),
  });
}

/** Days sold at each price (to the currency's minor unit). */
function priceDaysOf(rows: readonly SalesRow[], currency: string): Map<number, number> {
  const days = new Map<number, number>();
  for (const r of rows) {
    const price = roundToMinor(r.price, currency);
    days.set(price, (days.get(price) ?? 0) + 1);
  }
  return days;
}

/**
 * The advisor of a plan: the exploration cap (the jump guard), whether a price leaves the observed range, and the
 * units' band from the fit's parameter uncertainty mixed with Poisson sales (the history's daily volume, sales
 * noise alone, where the fit does not know the product).
 */
export function explorationAdvisor(
  history: readonly SalesRow[],
  exploration: Exploration,
  fit: () => FittedDemand | null,
): PlanAdvisor {
  // Grouped on first use: a plan the online learner prices throughout asks for none of it.
  let rows: Map<string, SalesRow[]> | undefined;
  const priceDays = new Map<string, PriceDays>();
  const daysOf = (state: ProductState): PriceDays => {
    const id = state.product.product_id;
    let days = priceDays.get(id);
    if (days === undefined) {
      rows ??= rowsByProduct(history);
      days = priceDaysOf(rows.get(id) ?? [], state.product.currency);
      priceDays.set(id, days);
    }
    return days;
  };
  return {
    cap(state, price, rulePrice) {
      return capToExploration(state, exploration, daysOf(state), price, rulePrice);
    },
    outside(state, price) {
      const base = state.product.base_price;
      return leavesRange(price, priceRange(daysOf(state).keys()) ?? [base, base]);
    },
    band(state, date, price, stock, promoted = 0) {
      const id = state.product.product_id;
      const product = fit()?.products.get(id);
      const weekday = weekdayOf(date);
      let mean: number;
      let logSd = 0;
      let alpha = 0;
      if (product === undefined) {
        const params = state.ruleParams;
        mean = params.dailyUnits === null ? 0 : params.dailyUnits * (params.weekdayIndex[weekday] ?? 1);
      } else {
        mean = fittedRateOn(product, dayNumber(date), price, promoted);
        alpha = product.overdispersion;
        // log rate = intercept - elasticity * log(price / reference): both errors, independent.
        const ratio = Math.log(price / product.referencePrice);
        logSd = Math.hypot(
          parameterSd(product.stdErrors.logIntercept),
          parameterSd(product.stdErrors.elasticity) * ratio,
        );
      }
      const cap = Number.isFinite(stock) ? Math.max(0, Math.floor(stock)) : Number.POSITIVE_INFINITY;
      const { unitsP10, unitsP90 } = unitsInterval(cappedMass(salesMass(mean, logSd, alpha), cap));
      return { p10: unitsP10, p90: unitsP90 };
    },
  };
}

/**
 * The jump guard: a price moved to the nearest end of the grid range the exploration setting allows
 * (`explorationRange` over the product's catalogue grid inside its guardrails), widened to include `rulePrice`
 * when given: a policy may always go as far as the rule it replaces would (the rule paces stock beyond the prices
 * sold at, and a guard tighter than it measured several points below it in `bench:policy`); `free` leaves it.
 */
export function capToExploration(
  state: ProductState,
  exploration: Exploration,
  priceDays: PriceDays,
  price: number,
  rulePrice?: number,
): number {
  if (exploration === "free") return price;
  const grid = insideGuardrailsOnly(state.setup.prices, state);
  if (grid.length === 0) return price;
  const range = explorationRange(grid, exploration, priceDays, state.product.base_price);
  const lo = Math.min(grid[range.lo] ?? price, rulePrice ?? Number.POSITIVE_INFINITY);
  const hi = Math.max(grid[range.hi] ?? price, rulePrice ?? Number.NEGATIVE_INFINITY);
  return Math.min(hi, Math.max(lo, price));
}

/**
 * The day's units: NB2 sales (over-dispersion `alpha`, the fit's) at a rate whose log has standard deviation
 * `logSd` (the fit's uncertainty), taken as Gamma with the same mean and relative variance e^(sd^2) - 1: the
 * product of the two Gammas is taken as one with their combined relative variance, so the mixture is negative
 * binomial; Poisson when the rate is known and alpha is 0.
 */
function salesMass(mean: number, logSd: number, alpha: number): number[] {
  if (!(mean > 0)) return [1];
  const parameter = Math.expm1(logSd * logSd);
  const relVar = parameter + alpha + parameter * alpha;
  if (!(relVar > 1e-9)) {
    const pmf = demandPmf(POISSON, mean);
    const mass: number[] = [];
    pmf.probs.forEach((p, j) => {
      mass[pmf.first + j] = p;
    });
    return Array.from(mass, (p) => p ?? 0);
  }
  const shape = 1 / relVar;
  const logQ = Math.log(mean / (shape + mean));
  const spread = mean + 8 * Math.sqrt(mean * (1 + mean * relVar)) + 10;
  // In logs, scaled by the largest term: P(0) = (1 - q)^shape underflows once the mean is in the hundreds.
  const logs = [shape * Math.log1p(-mean / (shape + mean))];
  for (let n = 0; n < spread; n++) logs.push((logs[n] ?? 0) + Math.log((n + shape) / (n + 1)) + logQ);
  const top = Math.max(...logs);
  const mass = logs.map((l) => Math.exp(l - top));
  const total = mass.reduce((a, b) => a + b, 0);
  return mass.map((m) => m / total);
}

/** The mass of min(D, cap). */
function cappedMass(mass: readonly number[], cap: number): number[] {
  if (!(cap < mass.length - 1)) return [...mass];
  const out = mass.slice(0, cap);
  out[cap] = mass.slice(cap).reduce((a, b) => a + b, 0);
  return out;
}
