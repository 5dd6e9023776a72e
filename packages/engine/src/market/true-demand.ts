import { at } from "../base/checked-index.js";
import type { DemandSpec } from "./scenario-schema.js";

/** A product's true demand, fully specified: what the market does, hidden from every fitted model. */
export interface TrueDemand {
  readonly family: DemandSpec["family"];
  /** Units per day at the reference price on a weekday of volume 1. */
  readonly baseRate: number;
  readonly referencePrice: number;
  /** Weekday volume, Monday first. */
  readonly weekday: readonly number[];
  /** Elasticity per weekday, Monday first. */
  readonly elasticity: readonly number[];
  /** Volume multiplier per horizon day (index 0 = start date); days outside use 1. */
  readonly dayMultipliers: readonly number[] | null;
  /** Volume multiplier per history day, oldest first, the last the day before the start date; days outside use 1. */
  readonly historyMultipliers: readonly number[] | null;
  /** Multiplier on the rate of a promoted day (lift ^ share for a share of the day promoted). */
  readonly promotionLift: number;
  /** For family "table": the grid prices and the rate at each. */
  readonly tablePrices: readonly number[] | null;
  readonly tableRates: readonly number[] | null;
}

export function trueDemandFromSpec(
  spec: DemandSpec,
  referencePrice: number,
  grid: readonly number[],
): TrueDemand {
  if (spec.family === "table" && spec.table?.length !== grid.length) {
    throw new Error(`family "table" needs one rate per grid price (${grid.length})`);
  }
  const e = spec.elasticity;
  return {
    family: spec.family,
    baseRate: spec.base_rate,
    referencePrice,
    weekday: [...spec.weekday],
    elasticity: typeof e === "number" ? [e, e, e, e, e, e, e] : [...e],
    dayMultipliers: spec.day_multipliers ? [...spec.day_multipliers] : null,
    historyMultipliers: spec.history_multipliers ? [...spec.history_multipliers] : null,
    promotionLift: spec.promotion_lift,
    tablePrices: spec.family === "table" ? [...grid] : null,
    tableRates: spec.family === "table" ? [...(spec.table ?? [])] : null,
  };
}

/**
 * Expected units per day at `price` (currency units) on a day of week `weekday` (Monday = 0) that is `horizonDay`
 * days after the horizon start (negative for history days), with a share `promoted` of the day promoted.
 */
export function trueRate(
  truth: TrueDemand,
  weekday: number,
  horizonDay: number,
  price: number,
  promoted = 0,
): number {
  const volume =
    (truth.weekday[weekday] ?? 1) *
    dayMultiplier(truth, horizonDay) *
    (promoted > 0 ? truth.promotionLift ** promoted : 1);
  const e = truth.elasticity[weekday] ?? 0;
  const x = price / truth.referencePrice;
  switch (truth.family) {
    case "exponential":
      return truth.baseRate * volume * Math.exp(-e * (x - 1));
    case "constant_elasticity":
      return truth.baseRate * volume * x ** -e;
    case "linear":
      return truth.baseRate * volume * Math.max(0, 1 - e * (x - 1));
    case "table":
      return volume * interpolate(truth.tablePrices ?? [], truth.tableRates ?? [], price);
  }
}

/** The level of the day `horizonDay` days after the horizon start: its history or horizon multiplier, else 1. */
function dayMultiplier(truth: TrueDemand, horizonDay: number): number {
  if (horizonDay >= 0) return truth.dayMultipliers?.[horizonDay] ?? 1;
  const history = truth.historyMultipliers;
  return history === null ? 1 : (history[history.length + horizonDay] ?? 1);
}

function interpolate(xs: readonly number[], ys: readonly number[], x: number): number {
  if (xs.length === 0) return 0;
  if (x <= at(xs, 0)) return at(ys, 0);
  for (let i = 1; i < xs.length; i++) {
    if (x <= at(xs, i)) {
      const f = (x - at(xs, i - 1)) / (at(xs, i) - at(xs, i - 1));
      return at(ys, i - 1) + f * (at(ys, i) - at(ys, i - 1));
    }
  }
  return at(ys, ys.length - 1);
}
