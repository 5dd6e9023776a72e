import { weekdayOf } from "../base/calendar.js";
import { withinDailyChange } from "../base/daily-change.js";
import { insideGuardrails } from "../base/guardrails.js";
import { nearestPrintable, printableAtOrAbove, printableAtOrBelow } from "../base/price-format.js";
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

/**
 * Which constraint moved a price: a guardrail, the max daily change, the exploration cap on a policy's price, or a
 * partner override's narrowing of the guardrails.
 */
export type PriceBinding = "min_price" | "max_price" | "max_daily_change" | "exploration_limit" | "override";

/**
 * Which of `boundPrice`'s limits moved `wanted` to `price` (its result): null when the price is the printable price
 * nearest `wanted` (DESIGN §11: the grid holds only printable prices, so printing is no constraint). A price at a
 * guardrail's printable end is that guardrail's doing (it also wins when the max daily change cannot hold, and the
 * guardrail is the tighter limit where both reach the same price); a price moved inside them, the max daily
 * change's, also where the price is beyond it from `prev` (no printable price lay within it and the nearest beyond
 * it was taken).
 */
export function priceBinding(
  state: ProductState,
  wanted: number,
  price: number,
  prev: number | null = null,
): Exclude<PriceBinding, "exploration_limit" | "override"> | null {
  const printed = nearestPrintable(state.format, wanted) ?? wanted;
  const limit = state.product.max_daily_change;
  if (Math.abs(price - printed) < 1e-9) {
    // The pricer's own price, yet beyond the max daily change from a price inside the guardrails: no printable
    // price lay within the limit (the ending won). From a price outside them, the guardrails moved it.
    const inside = prev !== null && insideGuardrails(prev, state);
    const beyond = limit !== null && prev !== null && !withinDailyChange(prev, price, limit);
    return inside && beyond ? "max_daily_change" : null;
  }
  const atMin = price <= printableAtOrAbove(state.format, state.minPrice) + 1e-9;
  const atMax = price >= (printableAtOrBelow(state.format, state.maxPrice) ?? state.maxPrice) - 1e-9;
  if (atMin && atMax) return wanted > price ? "max_price" : "min_price";
  if (atMin) return "min_price";
  if (atMax) return "max_price";
  return "max_daily_change";
}

/**
 * A price made binding: printable (the product's currency and endings), inside today's guardrails and, where it
 * can, within the max daily change of the previous price. The guardrails win when both cannot hold (a previous
 * price far outside them): the nearest bound. Where no printable price lies within the max daily change (a
 * previous price off the printable grid, an ending wider than the limit), the nearest printable price in the
 * direction of the change wins (DESIGN §11).
 */
export function boundPrice(state: ProductState, price: number, prev: number | null): number {
  const { format } = state;
  const limit = state.product.max_daily_change;
  const minPrice = printableAtOrAbove(format, state.minPrice);
  const maxPrice = printableAtOrBelow(format, state.maxPrice) ?? minPrice;
  let lo = minPrice;
  let hi = maxPrice;
  if (limit !== null && prev !== null) {
    const stepLo = Math.max(lo, prev * (1 - limit));
    const stepHi = Math.min(hi, prev * (1 + limit));
    if (stepLo <= stepHi) {
      lo = stepLo;
      hi = stepHi;
    } else {
      lo = hi = prev > maxPrice ? maxPrice : minPrice;
    }
  }
  const target = Math.min(hi, Math.max(lo, price));
  const inside = nearestPrintable(format, target, lo, hi);
  if (inside !== null) return inside;
  const up = printableAtOrAbove(format, hi);
  const down = printableAtOrBelow(format, lo) ?? minPrice;
  const towards = prev === null || price >= prev ? up : down;
  return Math.min(maxPrice, Math.max(minPrice, towards));
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
