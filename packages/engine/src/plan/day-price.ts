import { weekdayOf } from "../base/calendar.js";
import { roundCents } from "../base/price-grid.js";
import { type FittedDemand, fittedLaw } from "../demand/fit-demand.js";
import { demandPmf, expectedCapped, POISSON } from "../problem/sales-distribution.js";
import { rulePrice } from "../rule/rule-price.js";
import type { ProductState } from "./product-state.js";

/** A date as the rule sees it: its weekday and the Mondays ... Sundays left to sell on, that date included. */
export interface RuleDay {
  readonly weekday: number;
  readonly remainingWeekdays: readonly number[];
}

/** The rule's view of a day of weekday `weekday` (Monday = 0) with `daysLeft` selling days from it, it included. */
export function ruleDay(weekday: number, daysLeft: number): RuleDay {
  const counts = [0, 0, 0, 0, 0, 0, 0];
  const n = Math.max(0, daysLeft);
  for (let k = 0; k < 7; k++) counts[(weekday + k) % 7] = Math.floor(n / 7) + (k < n % 7 ? 1 : 0);
  return { weekday, remainingWeekdays: counts };
}

/** The rule's price (currency units, inside the guardrails) with `stock` left (Infinity when unlimited). */
export function ruleRawPrice(state: ProductState, day: RuleDay, stock: number): number {
  return ruleAsks(state, day, stock, { minPrice: state.minPrice, maxPrice: state.maxPrice });
}

/** The rule's price with `stock` left before any guardrail: what the rule itself asks (currency units). */
export function unboundedRulePrice(state: ProductState, day: RuleDay, stock: number): number {
  return ruleAsks(state, day, stock, {
    minPrice: Number.NEGATIVE_INFINITY,
    maxPrice: Number.POSITIVE_INFINITY,
  });
}

function ruleAsks(
  state: ProductState,
  day: RuleDay,
  stock: number,
  bounds: { minPrice: number; maxPrice: number },
): number {
  return rulePrice(
    state.ruleParams,
    {
      weekday: day.weekday,
      stockLeft: Number.isFinite(stock) ? stock : null,
      remainingWeekdayCounts: day.remainingWeekdays,
    },
    bounds,
  );
}

/** Which constraint moved a price: a guardrail, the max daily change, or the exploration cap on a policy's price. */
export type PriceBinding = "min_price" | "max_price" | "max_daily_change" | "exploration_limit";

/**
 * Which of `boundPrice`'s limits moved `wanted` to `price` (its result): null when the price is `wanted` to the
 * cent. A price at a guardrail is that guardrail's doing (it also wins when the max daily change cannot hold, and
 * the guardrail is the tighter limit where both reach the same price); a price moved inside them, the max daily
 * change's.
 */
export function priceBinding(
  state: ProductState,
  wanted: number,
  price: number,
): Exclude<PriceBinding, "exploration_limit"> | null {
  if (Math.abs(price - roundCents(wanted)) < 1e-9) return null;
  const atMin = price <= state.minPrice + 1e-9;
  const atMax = price >= state.maxPrice - 1e-9;
  if (atMin && atMax) return wanted > price ? "max_price" : "min_price";
  if (atMin) return "min_price";
  if (atMax) return "max_price";
  return "max_daily_change";
}

/**
 * A price made binding: inside today's guardrails and, where it can, within the max daily change of the previous
 * price, in cents. The guardrails win when both cannot hold (a previous price far outside them): the nearest bound.
 */
export function boundPrice(state: ProductState, price: number, prev: number | null): number {
  const limit = state.product.max_daily_change;
  let lo = state.minPrice;
  let hi = state.maxPrice;
  if (limit !== null && prev !== null) {
    const stepLo = Math.max(lo, prev * (1 - limit));
    const stepHi = Math.min(hi, prev * (1 + limit));
    if (stepLo <= stepHi) {
      lo = stepLo;
      hi = stepHi;
    } else {
      lo = hi = prev > state.maxPrice ? state.maxPrice : state.minPrice;
    }
  }
  let r = roundCents(Math.min(hi, Math.max(lo, price)));
  // Rounding to cents must not step outside the window.
  if (r < lo - 1e-9) r = Math.ceil(lo * 100 - 1e-6) / 100;
  if (r > hi + 1e-9) r = Math.floor(hi * 100 + 1e-6) / 100;
  return Math.min(state.maxPrice, Math.max(state.minPrice, r));
}

/**
 * Expected units sold on `date` at `price` with `stock` left (Infinity when unlimited): the fitted demand when it
 * knows the product (with a share `promoted` of the day promoted), else the history's daily volume by weekday; its
 * sales (the fit's NB2, else Poisson) capped by the stock.
 */
export function expectedUnitsOn(
  state: ProductState,
  fit: () => FittedDemand | null,
  date: string,
  price: number,
  stock: number,
  promoted = 0,
): number {
  const id = state.product.product_id;
  const model = fit();
  const fitted = model?.products.get(id);
  let rate: number;
  if (model && fitted) rate = model.rate(id, date, price, promoted);
  else {
    const params = state.ruleParams;
    rate = params.dailyUnits === null ? 0 : params.dailyUnits * (params.weekdayIndex[weekdayOf(date)] ?? 1);
  }
  if (!Number.isFinite(stock)) return rate;
  if (stock <= 0) return 0;
  return expectedCapped(demandPmf(fitted === undefined ? POISSON : fittedLaw(fitted), rate), stock);
}
