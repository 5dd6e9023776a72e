import { addDays, daysBetween, weekdayOf } from "../base/calendar.js";
import { type FittedDemand, fitDemand } from "../demand/fit-demand.js";
import type { Exploration } from "../learn/exploration-range.js";
import { explorationAdvisor } from "../learn/learning-plan.js";
import { onlineLearner } from "../learn/online-learner.js";
import { expectedUnitsOn } from "../plan/day-price.js";
import { type CatalogProduct, type ProductState, productState } from "../plan/product-state.js";
import type { SalesRow } from "../sales/sales-row.js";
import {
  BacktestError,
  type BacktestProduct,
  type BacktestReport,
  type BacktestRow,
  figuresOf,
  type Refit,
} from "./backtest-report.js";

export interface BacktestInput {
  readonly companyId: string;
  /** The company's catalogue (every product a held-out row names; rows of other products are skipped). */
  readonly products: readonly CatalogProduct[];
  /** Every sales row of the company, in any order (`promoted`: the day's known promotion, absent 0). */
  readonly sales: readonly SalesRow[];
  /** First held-out date (YYYY-MM-DD); the fits see only sales before it (daily: before each day). */
  readonly from: string;
  /** Last held-out date, inclusive; default the last sales date. */
  readonly to?: string;
  /** Default "daily". */
  readonly refit?: Refit;
  /** The company's exploration setting (the learner's price range); default "cautious". */
  readonly exploration?: Exploration;
  /**
   * Whether the plans price with the online learner (default true), as the server's do unless the company forces
   * the rule; false: the demand fit's units and the advisor's band, what a forced-rule plan serves.
   */
  readonly online?: boolean;
  /** Seeds the learner's posterior draws, as the server seeds them with the company id; default the company id. */
  readonly seed?: string;
  /** Selling days of a product without a season end (the server's `trainHorizonDays`). */
  readonly horizonDays: number;
  /** Called after each refit's day is predicted, with the days done and the days in all. */
  readonly onDay?: (done: number, total: number) => void;
}

/** Same-weekday days the seasonal-naive baseline averages: the 8 weeks before the fit. */
const BASELINE_WEEKS = 8;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const byDate = (a: SalesRow, b: SalesRow) =>
  a.date < b.date ? -1 : a.date > b.date ? 1 : a.product_id < b.product_id ? -1 : 1;

/** Rows by a key, each list in the rows' order (Node 20 has no `Map.groupBy`). */
function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(key(r));
    if (list === undefined) out.set(key(r), [r]);
    else list.push(r);
  }
  return out;
}

/** Index of the first row dated on or after `date` in rows sorted by date. */
function firstOnOrAfter(rows: readonly SalesRow[], date: string): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((rows[mid]?.date ?? "") < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The held-out range of an input, checked: the sales sorted by date, the bounds, the held-out rows of known products. */
function heldOut(input: Omit<BacktestInput, "onDay">) {
  const sales = [...input.sales].sort(byDate);
  const from = input.from;
  // Without --to, through the last sale (from itself when every sale is before it: "no sales in the range").
  let to = input.to ?? sales.at(-1)?.date ?? from;
  if (input.to === undefined && to < from) to = from;
  for (const [flag, date] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
      throw new BacktestError("invalid_range", `--${flag} must be a date YYYY-MM-DD, got "${date}".`);
    }
  }
  if (to < from) throw new BacktestError("invalid_range", `--to ${to} is before --from ${from}.`);
  const start = firstOnOrAfter(sales, from);
  if (start === 0) {
    throw new BacktestError(
      "no_history_before",
      `The company has no sales before ${from}: the backtest fits on the sales before --from.`,
    );
  }
  const catalogue = new Map(input.products.map((p) => [p.product_id, p]));
  const held = sales
    .slice(start, firstOnOrAfter(sales, addDays(to, 1)))
    .filter((r) => catalogue.has(r.product_id));
  if (held.length === 0) {
    const range = input.to === undefined ? `on or after ${from}` : `from ${from} to ${to}`;
    throw new BacktestError("no_sales_in_range", `The company has no sales ${range}.`);
  }
  return { sales, from, to, catalogue, held };
}

/** Throws the `BacktestError` `backtest` would for the input's range (cheap: no fit). */
export function checkBacktestRange(input: Omit<BacktestInput, "onDay">): void {
  heldOut(input);
}

/**
 * Predicts each sales row in [from, to] at its actual price and promotion with the band the API serves, and scores
 * the predictions (DESIGN.md §9). Each day is predicted as a plan on that day serves it: the online learner built
 * from the sales before the fit's today (`planWithLearning`'s learner; `unitsAt` gives its band at the price charged)
 * with the plan's advisor band for a product the learner does not hold. `refit: "daily"` builds it on every sale
 * before each held-out day (the nightly run), `"once"` on the sales before `from`. Stock: a row's `stock_on_hand`
 * caps its units, unlimited without one. Pure and synchronous (the server runs it in a worker thread).
 */
export function backtest(input: BacktestInput): BacktestReport {
  const refit = input.refit ?? "daily";
  const exploration = input.exploration ?? "cautious";
  const seed = input.seed ?? input.companyId;
  const online = input.online ?? true;
  const { sales, from, to, catalogue, held } = heldOut(input);

  const hints = input.products.map((p) => ({ productId: p.product_id, referencePrice: p.base_price }));
  /** What a plan on `today` predicts with: the learner, its fit, the advisor and each product's state. */
  const modelOn = (today: string) => {
    const history = sales.slice(0, firstOnOrAfter(sales, today));
    const learner = online ? onlineLearner({ history, products: hints, exploration, seed }) : null;
    let fitted: FittedDemand | undefined = learner?.fit;
    const fit = () => {
      fitted ??= fitDemand(history, hints);
      return fitted;
    };
    const byProduct = groupBy(history, (r) => r.product_id);
    const states = new Map<string, ProductState>();
    const stateOf = (product: CatalogProduct) => {
      let state = states.get(product.product_id);
      if (state === undefined) {
        state = productState(product, byProduct.get(product.product_id) ?? [], today, {
          horizonDays: input.horizonDays,
        });
        states.set(product.product_id, state);
      }
      return state;
    };
    return { today, learner, fit, advisor: explorationAdvisor(history, exploration, fit), stateOf };
  };

  const units = new Map(sales.map((r) => [`${r.product_id}\u0000${r.date}`, r.units_sold]));
  /**
   * The seasonal-naive forecast of `date`: the product's mean units on its weekday over the 8 weeks before `fitDay`
   * (the rows there are; 0 without any).
   */
  const baselineOf = (productId: string, date: string, fitDay: string): number => {
    // The last day before fitDay on the date's weekday, then the weeks before it.
    const gap = (weekdayOf(fitDay) - weekdayOf(date) + 7) % 7 || 7;
    let sum = 0;
    let n = 0;
    for (let k = 0; k < BASELINE_WEEKS; k++) {
      const u = units.get(`${productId}\u0000${addDays(fitDay, -(gap + 7 * k))}`);
      if (u !== undefined) {
        sum += u;
        n += 1;
      }
    }
    return n > 0 ? sum / n : 0;
  };

  const byDay = groupBy(held, (r) => r.date);
  const rows: (BacktestRow & { baseline: number })[] = [];
  const lastFit = new Map<string, { elasticity: number; se: number; alpha: number }>();
  const once = refit === "once" ? modelOn(from) : null;
  let done = 0;
  for (const [date, dayRows] of byDay) {
    const m = once ?? modelOn(date);
    const fitDay = refit === "daily" ? date : from;
    for (const r of dayRows) {
      const product = catalogue.get(r.product_id);
      if (product === undefined) continue;
      const state = m.stateOf(product);
      const promoted = r.promoted ?? 0;
      const stock = r.stock_on_hand ?? Number.POSITIVE_INFINITY;
      const day = daysBetween(m.today, date);
      const learned = m.learner?.unitsAt(state, date, day, stock, { price: r.price, promoted }) ?? null;
      let expected: number;
      let p10: number;
      let p90: number;
      if (learned !== null) {
        expected = learned.expectedUnits;
        p10 = learned.unitsP10;
        p90 = learned.unitsP90;
      } else {
        // The plan's rows the learner does not price (or, not online, none): the fit's units and the advisor's band.
        expected = round4(expectedUnitsOn(state, m.fit, date, r.price, stock, promoted));
        const band = m.advisor.band(state, date, r.price, stock, promoted);
        p10 = band.p10;
        p90 = band.p90;
      }
      const productFit = m.fit().products.get(r.product_id);
      if (productFit !== undefined) {
        lastFit.set(r.product_id, {
          elasticity: productFit.elasticity,
          se: productFit.stdErrors.elasticity,
          alpha: productFit.overdispersion,
        });
      }
      rows.push({
        date,
        product_id: r.product_id,
        price: r.price,
        promoted,
        units_sold: r.units_sold,
        expected_units: expected,
        // As a plan serves them: p10 <= expected_units <= p90.
        expected_units_p10: Math.min(p10, expected),
        expected_units_p90: Math.max(p90, expected),
        baseline: baselineOf(r.product_id, date, fitDay),
      });
    }
    done += 1;
    input.onDay?.(done, byDay.size);
  }

  const scored = (list: typeof rows) =>
    figuresOf(
      list.map((r) => ({
        units: r.units_sold,
        expected: r.expected_units,
        baseline: r.baseline,
        p10: r.expected_units_p10,
        p90: r.expected_units_p90,
      })),
    );
  const perProduct = groupBy(rows, (r) => r.product_id);
  const finite = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? null : round4(x));
  const products: BacktestProduct[] = [...perProduct.keys()].sort().map((id) => ({
    product_id: id,
    ...scored(perProduct.get(id) ?? []),
    elasticity: finite(lastFit.get(id)?.elasticity),
    elasticity_se: finite(lastFit.get(id)?.se),
    overdispersion: finite(lastFit.get(id)?.alpha),
  }));
  return {
    company_id: input.companyId,
    from,
    to,
    refit,
    summary: scored(rows),
    products,
    rows: rows.map(({ baseline: _, ...row }) => row),
  };
}
