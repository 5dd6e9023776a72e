import { weekdayOf } from "../base/calendar.js";
import { roundCents } from "../base/price-grid.js";
import { fitDemand, fittedRate } from "../demand/fit-demand.js";
import { demandPmf, expectedCapped } from "../demand/sales-distribution.js";
import type { SalesRow } from "../market/generate-market.js";
import type { ProductState } from "../plan/product-state.js";
import type { Exploration } from "./exploration-range.js";
import { explorationAdvisor } from "./learning-plan.js";

export interface DemandCurveInput {
  /** The day the curves are for (the company's today): its weekday sets the volume. */
  readonly today: string;
  /** Every product of the company on `today`: the demand fit pools across them, as the plan's does. */
  readonly products: readonly ProductState[];
  /** Sales before `today`, every product's rows, sorted by date (what the plan fits from). */
  readonly history: readonly SalesRow[];
  readonly exploration: Exploration;
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

function observedPoints(rows: readonly SalesRow[]): ObservedPoint[] {
  const byPrice = new Map<number, { days: number; units: number }>();
  for (const r of rows) {
    const price = roundCents(r.price);
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
 * Each product's demand curve on `today`: expected units and margin at every price of its grid, with the p10-p90
 * band a plan serves for a price it did not learn at (`explorationAdvisor`'s: the fit's parameter uncertainty mixed
 * with the sales noise), over the history's observed points and price range. The demand model is fitted once from
 * the whole company's history, as `planWithLearning` fits it, so the curve is the model the plan priced with.
 * Fitting costs some 150 ms for 100 products x a year (more in a cold thread): see `demandCurvesInWorker`.
 */
export function demandCurves(input: DemandCurveInput): DemandCurve[] {
  const hints = input.products.map((p) => ({
    productId: p.product.product_id,
    referencePrice: p.product.base_price,
  }));
  const fit = input.history.length > 0 ? fitDemand(input.history, hints) : null;
  const advisor = explorationAdvisor(input.history, input.exploration, () => fit);
  const rows = new Map<string, SalesRow[]>();
  for (const r of input.history) {
    const list = rows.get(r.product_id);
    if (list === undefined) rows.set(r.product_id, [r]);
    else list.push(r);
  }
  const wanted = input.productIds === undefined ? null : new Set(input.productIds);
  const weekday = weekdayOf(input.today);
  return input.products
    .filter((state) => wanted === null || wanted.has(state.product.product_id))
    .map((state) => {
      const id = state.product.product_id;
      const fitted = fit?.products.get(id);
      const unitCost = state.product.unit_cost ?? 0;
      const observed = observedPoints(rows.get(id) ?? []);
      const stock = state.stock ?? Number.POSITIVE_INFINITY;
      const grid = state.setup.prices.filter((p) => p >= state.minPrice - 1e-9 && p <= state.maxPrice + 1e-9);
      const points =
        fitted === undefined
          ? []
          : grid.map((price): CurvePoint => {
              const expectedUnits = expectedCapped(
                demandPmf("poisson", fittedRate(fitted, weekday, price)),
                stock,
              );
              const band = advisor.band(state, input.today, price, stock);
              const margin = (units: number) => roundCents((price - unitCost) * units);
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
