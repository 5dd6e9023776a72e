import {
  addDays,
  daysBetween,
  demandPmf,
  expectedCapped,
  type FittedDemand,
  type RlPolicy,
  roundCents,
  rulePrice,
  weekdayOf,
} from "@pricing/engine";
import type { Recommendation } from "@pricing/http-adapter";
import { type CompanySnapshot, type ProductSnapshot, sellsOn } from "./company-snapshot.js";

export type Source = Recommendation["source"];

/** What backs inference: a loaded policy with its slot, or the rule. */
export type ActivePolicy =
  | { source: "approved" | "latest"; modelId: string; policy: RlPolicy }
  | { source: "rule"; modelId: null; policy: null };

export interface PlanInput {
  snapshot: CompanySnapshot;
  active: ActivePolicy;
  /**
   * Fitted demand for expected units of rule-priced rows (called only when some row needs the rule); null prices
   * them with the history's daily volume.
   */
  fit: () => FittedDemand | null;
  /** Inclusive dates; both >= snapshot.today. */
  startDate: string;
  endDate: string;
}

/** Counts of Mondays ... Sundays from `date` to `last` inclusive (the rule's remaining demand). */
function remainingWeekdays(date: string, last: string): number[] {
  const counts = [0, 0, 0, 0, 0, 0, 0];
  const n = Math.max(0, daysBetween(date, last) + 1);
  const full = Math.floor(n / 7);
  for (let d = 0; d < 7; d++) counts[d] = full;
  const start = weekdayOf(date);
  for (let k = 0; k < n % 7; k++) counts[(start + k) % 7]! += 1;
  return counts;
}

function ruleAt(product: ProductSnapshot, date: string, stockLeft: number, seasonLast: string): number {
  return rulePrice(
    product.ruleParams,
    {
      weekday: weekdayOf(date),
      stockLeft: Number.isFinite(stockLeft) ? stockLeft : null,
      remainingWeekdayCounts: remainingWeekdays(date, seasonLast),
    },
    { minPrice: product.minPrice, maxPrice: product.maxPrice },
  );
}

/**
 * Keeps a price inside the guardrails and, where it can, within the max daily change of the previous price, in
 * cents. The guardrails win when both cannot hold (a previous price far outside them): the nearest bound.
 */
function guarded(product: ProductSnapshot, price: number, prev: number | null): number {
  const limit = product.row.max_daily_change;
  let lo = product.minPrice;
  let hi = product.maxPrice;
  if (limit !== null && prev !== null) {
    const stepLo = Math.max(lo, prev * (1 - limit));
    const stepHi = Math.min(hi, prev * (1 + limit));
    if (stepLo <= stepHi) {
      lo = stepLo;
      hi = stepHi;
    } else {
      lo = hi = prev > product.maxPrice ? product.maxPrice : product.minPrice;
    }
  }
  let r = roundCents(Math.min(hi, Math.max(lo, price)));
  // Rounding to cents must not step outside the window.
  if (r < lo - 1e-9) r = Math.ceil(lo * 100 - 1e-6) / 100;
  if (r > hi + 1e-9) r = Math.floor(hi * 100 + 1e-6) / 100;
  return Math.min(product.maxPrice, Math.max(product.minPrice, r));
}

function expectedUnits(
  product: ProductSnapshot,
  fit: () => FittedDemand | null,
  date: string,
  price: number,
  stock: number,
): number {
  let rate: number;
  const id = product.row.product_id;
  const model = fit();
  if (model?.products.has(id)) rate = model.rate(id, date, price);
  else {
    const params = product.ruleParams;
    rate = params.dailyUnits === null ? 0 : params.dailyUnits * (params.weekdayIndex[weekdayOf(date)] ?? 1);
  }
  if (!Number.isFinite(stock)) return rate;
  if (stock <= 0) return 0;
  return expectedCapped(demandPmf("poisson", rate), stock);
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/**
 * Prices every product for every date of [startDate, endDate]: with the policy where it covers the product and
 * date, with the rule elsewhere (a product the policy does not know, or dates past the policy's horizon), rolling
 * stock forward by expected sales from today. Sorted by date, then product id.
 */
export function planRecommendations(input: PlanInput): Recommendation[] {
  const { snapshot, active, fit, startDate, endDate } = input;
  const today = snapshot.today;
  const out: Recommendation[] = [];
  const rlRows = new Map<string, Map<string, { price: number; units: number; stockBefore: number }>>();
  if (active.policy !== null) {
    const known = snapshot.products.filter((p) => {
      try {
        active.policy.productIndex(p.row.product_id);
        return true;
      } catch {
        return false;
      }
    });
    if (known.length > 0 && today >= active.policy.startDate) {
      const plan = active.policy.recommend(
        {
          today,
          products: known.map((p) => ({
            productId: p.row.product_id,
            stock: p.stock,
            lastPrice: p.lastPrice,
          })),
        },
        { endDate },
      );
      for (const row of plan) {
        if (row.price === null) continue;
        let byDate = rlRows.get(row.productId);
        if (!byDate) {
          byDate = new Map();
          rlRows.set(row.productId, byDate);
        }
        byDate.set(row.date, { price: row.price, units: row.expectedUnits, stockBefore: row.stockBefore });
      }
    }
  }

  const days = daysBetween(today, endDate);
  for (const product of snapshot.products) {
    const id = product.row.product_id;
    const currency = product.row.currency;
    const seasonLast = product.row.season_end ?? addDays(today, product.setup.horizon - 1);
    const learned = rlRows.get(id);
    let stock = product.stock === null ? Number.POSITIVE_INFINITY : product.stock;
    let prev = product.lastPrice;
    for (let t = 0; t <= days; t++) {
      const date = addDays(today, t);
      if (!sellsOn(product, date)) break;
      const rl = active.source === "rule" ? undefined : learned?.get(date);
      if (rl !== undefined) stock = rl.stockBefore;
      const rule = guarded(product, ruleAt(product, date, stock, seasonLast), prev);
      let price: number;
      let units: number;
      let source: Source;
      let modelId: string | null;
      if (rl !== undefined && active.source !== "rule") {
        // The policy learned the guardrails of its training day; today's (possibly tightened) ones still bind.
        price = Math.min(product.maxPrice, Math.max(product.minPrice, rl.price));
        units = price === rl.price ? rl.units : expectedUnits(product, fit, date, price, stock);
        source = active.source;
        modelId = active.modelId;
      } else {
        price = rule;
        units = expectedUnits(product, fit, date, price, stock);
        source = "rule";
        modelId = null;
      }
      if (date >= startDate) {
        out.push({
          product_id: id,
          date,
          price: roundCents(price),
          currency,
          base_price: product.row.base_price,
          rule_price: rule,
          expected_units: round4(units),
          expected_revenue: roundCents(units * price),
          source,
          model_id: modelId,
        });
      }
      stock = Math.max(0, stock - units);
      prev = price;
    }
  }
  out.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.product_id < b.product_id ? -1 : 1));
  return out;
}
