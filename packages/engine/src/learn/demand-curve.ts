import { weekdayOf } from "../base/calendar.js";
import { roundToMinor } from "../base/currency.js";
import { insideGuardrailsOnly } from "../base/guardrails.js";
import { fitDemand, fittedLaw, fittedRate } from "../demand/fit-demand.js";
import type { ProductState } from "../plan/product-state.js";
import { demandPmf, expectedCapped } from "../problem/sales-distribution.js";
import { rowsByProduct, type SalesRow } from "../sales/sales-row.js";
import type { Exploration } from "./exploration-range.js";
import { explorationAdvisor } from "./learning-plan.js";
import { onlineLearner } from "./online-learner.js";

export interface DemandCurveInput {
  /** The day the curves are for (the company's today): its weekday sets the volume. */
  readonly today: string;
  /** Every product of the company on `today`: the demand fit pools across them, as the plan's does. */
  readonly products: readonly ProductState[];
  /** Sales before `today`, every product's rows, sorted by date (what the plan fits from). */
  readonly history: readonly SalesRow[];
  readonly exploration: Exploration;
  /** The seed of the plan's learner (the server's is the company id): the bands are drawn from its streams. */
  readonly seed: string;
  /**
   * Whether the plan's online learner prices (`LearningPlanInput.online`; false: the kill switch). Default true.
   * False: the curves show the band the plan serves for the rule's prices.
   */
  readonly online?: boolean;
  /** The products to draw (default every one); the fit still uses them all. */
  readonly productIds?: readonly string[];
}

/** One price of a demand curve: units on `today` at that price and the margin they make. */
export interface CurvePoint {
  /** Currency units, on the product's catalogue grid inside its guardrails. */
  readonly price: number;
  /** Expected units sold that day (capped by the stock on hand). */
  readonly expectedUnits: number;
  readonly unitsP10: number;
  readonly unitsP90: number;
  /** (price - unit cost) x units, in currency units. */
  readonly expectedMargin: number;
  readonly marginP10: number;
  readonly marginP90: number;
}

/** The history's days at one price: how many, and their mean units sold. */
export interface ObservedPoint {
  readonly price: number;
  readonly days: number;
  readonly meanUnits: number;
}

export interface DemandCurve {
  readonly productId: string;
  readonly date: string;
  readonly unitCost: number;
  /** Lowest and highest price the history sold at; null without history. */
  readonly observedPriceRange: readonly [number, number] | null;
  /** The fit's elasticity and its standard error; null where the fit does not hold the product. */
  readonly elasticity: number | null;
  readonly elasticityStdError: number | null;
  /** Ascending by price; empty where the fit does not hold the product (no usable history). */
  readonly points: readonly CurvePoint[];
  readonly observed: readonly ObservedPoint[];
}

function observedPoints(rows: readonly SalesRow[], currency: string): ObservedPoint[] {
  const byPrice = new Map<number, { days: number; units: number }>();
  for (const r of rows) {
    const price = roundToMinor(r.price, currency);
    const seen = byPrice.get(price) ?? { days: 0, units: 0 };
    seen.days += 1;
    seen.units += r.units_sold;
    byPrice.set(price, seen);
  }
  return [...byPrice]
    .sort(([a], [b]) => a - b)
    .map(([price, s]) => ({ price, days: s.days, meanUnits: Math.round((s.units / s.days) * 1000) / 1000 }));
}

/**
 * Each product's demand curve on `today`: expected units and margin at every price of its grid with their p10-p90
 * band as the plan's online learner believes them (`OnlineLearner.unitsAt`: its posterior and draws, so at the
 * price the plan chose for today the curve passes through the run's own expected units and band), over the
 * history's observed points and price range. Where the learner does not price (the kill switch, a product it
 * cannot hold), the band the plan serves then (`explorationAdvisor`'s: the fit's parameter uncertainty mixed with
 * the sales noise). The learner is built as `planWithLearning` builds it, from the whole company's history.
 * Fitting costs some 150 ms for 100 products x a year (more in a cold thread): see `demandCurvesInWorker`.
 */
export function demandCurves(input: DemandCurveInput): DemandCurve[] {
  const hints = input.products.map((p) => ({
    productId: p.product.product_id,
    referencePrice: p.product.base_price,
  }));
  const learner =
    input.online !== false && input.history.length > 0
      ? onlineLearner({
          history: input.history,
          products: hints,
          exploration: input.exploration,
          seed: input.seed,
        })
      : null;
  const fit = learner?.fit ?? (input.history.length > 0 ? fitDemand(input.history, hints) : null);
  const advisor = explorationAdvisor(input.history, input.exploration, () => fit);
  const rows = rowsByProduct(input.history);
  const wanted = input.productIds === undefined ? null : new Set(input.productIds);
  const weekday = weekdayOf(input.today);
  return input.products
    .filter((state) => wanted === null || wanted.has(state.product.product_id))
    .map((state) => {
      const id = state.product.product_id;
      const fitted = fit?.products.get(id);
      const unitCost = state.product.unit_cost ?? 0;
      const observed = observedPoints(rows.get(id) ?? [], state.product.currency);
      const stock = state.stock ?? Number.POSITIVE_INFINITY;
      const grid = insideGuardrailsOnly(state.setup.prices, state);
      const points =
        fitted === undefined
          ? []
          : grid.map((price): CurvePoint => {
              const learned = learner?.unitsAt(state, input.today, 0, stock, { price, promoted: 0 }) ?? null;
              const expectedUnits =
                learned?.expectedUnits ??
                expectedCapped(demandPmf(fittedLaw(fitted), fittedRate(fitted, weekday, price)), stock);
              const fallback = learned === null ? advisor.band(state, input.today, price, stock) : null;
              // Widened to hold the expectation, as the plan's rows are.
              const band = {
                p10: Math.min(learned?.unitsP10 ?? fallback?.p10 ?? 0, expectedUnits),
                p90: Math.max(learned?.unitsP90 ?? fallback?.p90 ?? 0, expectedUnits),
              };
              const margin = (units: number) =>
                roundToMinor((price - unitCost) * units, state.product.currency);
              const [lo, hi] = [margin(band.p10), margin(band.p90)].sort((a, b) => a - b);
              return {
                price,
                expectedUnits: Math.round(expectedUnits * 10_000) / 10_000,
                unitsP10: band.p10,
                unitsP90: band.p90,
                expectedMargin: margin(expectedUnits),
                marginP10: lo ?? 0,
                marginP90: hi ?? 0,
              };
            });
      return {
        productId: id,
        date: input.today,
        unitCost,
        observedPriceRange:
          observed.length === 0 ? null : [observed[0]?.price ?? 0, observed.at(-1)?.price ?? 0],
        elasticity: fitted?.elasticity ?? null,
        elasticityStdError: fitted?.stdErrors.elasticity ?? null,
        points,
        observed,
      };
    });
}
