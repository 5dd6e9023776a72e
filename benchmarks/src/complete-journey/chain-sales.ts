import { PANEL_DAYS } from "./chain-calendar.js";

/** One product's chain-wide daily totals over the panel's days (index = panel day). */
export interface ProductDays {
  units: Float64Array;
  /** Paid value (`sales_value`, after the loyalty discount and the retailer's coupon match), currency units. */
  value: Float64Array;
  stores: Set<number>;
}

/**
 * Sums the panel's purchase lines to chain x product x day. Lines with no units or no paid value (returns,
 * free items) carry no price and are dropped. The chain is open on a day when any line of any product falls
 * on it; each day's promotion week is the week most of its lines carry (the source's weeks are not calendar
 * weeks).
 */
export class ChainSales {
  readonly products = new Map<number, ProductDays>();
  private readonly linesPerDay = new Float64Array(PANEL_DAYS);
  private readonly weekVotes = new Map<number, Map<number, number>>();

  constructor(private readonly keep: (productId: number) => boolean) {}

  addLine(line: {
    productId: number;
    storeId: number;
    day: number;
    week: number;
    quantity: number;
    salesValue: number;
  }): void {
    if (line.day < 0 || line.day >= PANEL_DAYS) return;
    this.linesPerDay[line.day]! += 1;
    const votes = this.weekVotes.get(line.day) ?? new Map<number, number>();
    votes.set(line.week, (votes.get(line.week) ?? 0) + 1);
    this.weekVotes.set(line.day, votes);
    if (line.quantity <= 0 || line.salesValue <= 0 || !this.keep(line.productId)) return;
    let days = this.products.get(line.productId);
    if (!days) {
      days = { units: new Float64Array(PANEL_DAYS), value: new Float64Array(PANEL_DAYS), stores: new Set() };
      this.products.set(line.productId, days);
    }
    days.units[line.day]! += line.quantity;
    days.value[line.day]! += line.salesValue;
    days.stores.add(line.storeId);
  }

  /** Panel days with any purchase line, ascending (the chain is closed on the others, e.g. Christmas). */
  openDays(): number[] {
    const days: number[] = [];
    for (let d = 0; d < PANEL_DAYS; d++) if (this.linesPerDay[d]! > 0) days.push(d);
    return days;
  }

  /** The source's promotion week of each open day. */
  weekOfDay(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [day, votes] of this.weekVotes) {
      let best = -1;
      let bestVotes = -1;
      for (const [week, n] of votes) {
        if (n > bestVotes || (n === bestVotes && week < best)) {
          best = week;
          bestVotes = n;
        }
      }
      out.set(day, best);
    }
    return out;
  }
}

/**
 * A product's daily price on the open days: paid value / units where it sold, else the last price it sold at
 * (the next one before its first sale), rounded to cents. Null when it never sold.
 */
export function dailyPrices(days: ProductDays, openDays: readonly number[]): number[] | null {
  const prices: (number | null)[] = openDays.map((d) =>
    days.units[d]! > 0 ? Math.round((days.value[d]! / days.units[d]!) * 100) / 100 : null,
  );
  const first = prices.find((p) => p !== null);
  if (first === undefined || first === null) return null;
  let last = first;
  return prices.map((p) => {
    if (p !== null) last = p;
    return last;
  });
}
