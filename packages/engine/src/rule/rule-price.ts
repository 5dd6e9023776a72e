import { weekdayOf } from "../base/calendar.js";
import { isStockOutDay, type SalesRow } from "../sales/sales-row.js";

/** What the rule knows about a product: its base price and, when there is history, its weekly rhythm and volume. */
export interface RuleParams {
  readonly basePrice: number;
  /** Units sold per weekday relative to the average day, Monday first (all 1 without history). */
  readonly weekdayIndex: readonly number[];
  /** Average units per day in history (at roughly the base price); null without history. */
  readonly dailyUnits: number | null;
  /** Price moves as weekdayIndex ^ this (default 0.25: a busy day gets a modestly higher price). */
  readonly weekdayExponent?: number;
  /** When stock covers only a fraction r of the expected remaining demand, price rises by r ^ -this (default 0.5). */
  readonly pacingExponent?: number;
  /** Largest pacing multiplier (default 2). */
  readonly maxPacing?: number;
}

export interface RuleState {
  /** Day of week of the date priced, Monday = 0. */
  readonly weekday: number;
  /** Units on hand, null when unlimited. */
  readonly stockLeft: number | null;
  /** How many Mondays ... Sundays remain to sell on, today included (drives the expected remaining demand). */
  readonly remainingWeekdayCounts: readonly number[];
}

export interface Guardrails {
  readonly minPrice: number;
  readonly maxPrice: number;
}

/**
 * The rule fallback's price (currency units): base price x weekday index ^ k x stock pacing, clamped to the
 * guardrails. With no history it is the base price, clamped.
 */
export function rulePrice(params: RuleParams, state: RuleState, guardrails: Guardrails): number {
  let price =
    params.basePrice * (params.weekdayIndex[state.weekday] ?? 1) ** (params.weekdayExponent ?? 0.25);
  if (state.stockLeft !== null && params.dailyUnits !== null && params.dailyUnits > 0) {
    let need = 0;
    for (let d = 0; d < 7; d++) {
      need += params.dailyUnits * (params.weekdayIndex[d] ?? 1) * (state.remainingWeekdayCounts[d] ?? 0);
    }
    const coverage = need > 0 ? state.stockLeft / need : Number.POSITIVE_INFINITY;
    if (coverage < 1) {
      const pacing = Math.max(coverage, 1e-9) ** -(params.pacingExponent ?? 0.5);
      price *= Math.min(pacing, params.maxPacing ?? 2);
    }
  }
  return Math.min(guardrails.maxPrice, Math.max(guardrails.minPrice, price));
}

/** Rule parameters from a product's sales history (stock-out days left out); with no rows, the base price alone. */
export function ruleParamsFromHistory(
  rows: readonly SalesRow[],
  productId: string,
  basePrice: number,
): RuleParams {
  const sums = new Array<number>(7).fill(0);
  const counts = new Array<number>(7).fill(0);
  for (const r of rows) {
    if (r.product_id !== productId) continue;
    if (isStockOutDay(r)) continue;
    const d = weekdayOf(r.date);
    sums[d] = (sums[d] ?? Number.NaN) + r.units_sold;
    counts[d] = (counts[d] ?? Number.NaN) + 1;
  }
  const days = counts.reduce((a, b) => a + b, 0);
  if (days === 0) return { basePrice, weekdayIndex: [1, 1, 1, 1, 1, 1, 1], dailyUnits: null };
  const perWeekday = sums.map((s, d) => {
    const n = counts[d] ?? 0;
    return n > 0 ? s / n : Number.NaN;
  });
  const known = perWeekday.filter((x) => !Number.isNaN(x));
  const mean = known.reduce((a, b) => a + b, 0) / known.length;
  const weekdayIndex = perWeekday.map((x) => (Number.isNaN(x) || mean <= 0 ? 1 : x / mean));
  return { basePrice, weekdayIndex, dailyUnits: sums.reduce((a, b) => a + b, 0) / days };
}
