import seedrandom from "seedrandom";
import { weekdayOf } from "../base/calendar.js";
import { roundCents } from "../base/price-grid.js";
import { type FittedDemand, fitDemand, fittedRate } from "../demand/fit-demand.js";
import { demandPmf } from "../demand/sales-distribution.js";
import type { SalesRow } from "../market/generate-market.js";
import type { ActivePolicy, PlanAdvisor, PlannedPrice } from "../plan/company-plan.js";
import { planPrices } from "../plan/company-plan.js";
import type { ProductState } from "../plan/product-state.js";
import { type Exploration, explorationRange, type PriceDays } from "./exploration-range.js";
import { onlineLearner, unitsInterval } from "./online-learner.js";
import { sampleNormal } from "./posterior-draws.js";

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
  /** Seeds every draw (posterior samples, the units' bands), together with the product and date priced. */
  readonly seed: string;
  /**
   * The online learner prices every product it can (the closed loop's daily refit from `history`), under the active
   * policy's model id; the policy (capped by the exploration range) prices the rest. False: the policy or the rule
   * alone, capped, each row with its band (the kill switch passes the rule here).
   */
  readonly online: boolean;
}

/** Posterior draws of the fitted parameters behind a band. */
const BAND_DRAWS = 32;
/** Largest standard deviation of a drawn parameter (as the learner's: a fit of a few days says "unknown", not e^1000). */
const MAX_PARAMETER_SD = 1;

/**
 * `planPrices` with the company's learning: the online learner where `online` and a model serves, every policy
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
    input.online && input.active.modelId !== null && input.history.length > 0
      ? onlineLearner({
          history: input.history,
          products: hints,
          exploration: input.exploration,
          seed: input.seed,
          modelId: input.active.modelId,
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
    advisor: explorationAdvisor(input.history, input.exploration, input.seed, fitted),
  });
}

/** Days sold at each price (cents), per product. */
function priceDaysOf(history: readonly SalesRow[]): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const r of history) {
    let days = out.get(r.product_id);
    if (days === undefined) {
      days = new Map();
      out.set(r.product_id, days);
    }
    const price = roundCents(r.price);
    days.set(price, (days.get(price) ?? 0) + 1);
  }
  return out;
}

/**
 * The advisor of a plan: the exploration cap (the jump guard), whether a price leaves the observed range, and the
 * units' band from the fit's parameter uncertainty mixed with Poisson sales (the history's daily volume, sales
 * noise alone, where the fit does not know the product).
 */
export function explorationAdvisor(
  history: readonly SalesRow[],
  exploration: Exploration,
  seed: string,
  fit: () => FittedDemand | null,
): PlanAdvisor {
  const priceDays = priceDaysOf(history);
  const daysOf = (state: ProductState): PriceDays => priceDays.get(state.product.product_id) ?? new Map();
  return {
    cap(state, price, rulePrice) {
      return capToExploration(state, exploration, daysOf(state), price, rulePrice);
    },
    outside(state, price) {
      const observed = [...daysOf(state).keys()];
      if (observed.length === 0) observed.push(state.product.base_price);
      return price < Math.min(...observed) - 1e-9 || price > Math.max(...observed) + 1e-9;
    },
    band(state, date, price, stock) {
      const id = state.product.product_id;
      const product = fit()?.products.get(id);
      const rng = seedrandom(`${seed}:${id}:${date}:band`);
      const weekday = weekdayOf(date);
      const rates: number[] = [];
      if (product === undefined) {
        const params = state.ruleParams;
        rates.push(params.dailyUnits === null ? 0 : params.dailyUnits * (params.weekdayIndex[weekday] ?? 1));
      } else {
        const sd = (x: number) => Math.min(MAX_PARAMETER_SD, Number.isFinite(x) ? x : MAX_PARAMETER_SD);
        const mean = fittedRate(product, weekday, price);
        const ratio = Math.log(price / product.referencePrice);
        for (let k = 0; k < BAND_DRAWS; k++) {
          const shift = sd(product.stdErrors.logIntercept) * sampleNormal(rng);
          const de = sd(product.stdErrors.elasticity) * sampleNormal(rng);
          // Elasticity drawn around the fit, kept >= 0 as the fit keeps it.
          const elasticity = Math.max(0, product.elasticity + de);
          rates.push(mean * Math.exp(shift - (elasticity - product.elasticity) * ratio));
        }
      }
      const mass: number[] = [];
      for (const rate of rates) {
        const pmf = demandPmf("poisson", rate);
        pmf.probs.forEach((p, j) => {
          const units = Math.min(
            Number.isFinite(stock) ? Math.max(0, Math.floor(stock)) : Infinity,
            pmf.first + j,
          );
          mass[units] = (mass[units] ?? 0) + p / rates.length;
        });
      }
      const { unitsP10, unitsP90 } = unitsInterval(mass);
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
  const grid = state.setup.prices.filter((p) => p >= state.minPrice - 1e-9 && p <= state.maxPrice + 1e-9);
  if (grid.length === 0) return price;
  const range = explorationRange(grid, exploration, priceDays, state.product.base_price);
  const lo = Math.min(grid[range.lo] ?? price, rulePrice ?? Number.POSITIVE_INFINITY);
  const hi = Math.max(grid[range.hi] ?? price, rulePrice ?? Number.NEGATIVE_INFINITY);
  return Math.min(hi, Math.max(lo, price));
}
