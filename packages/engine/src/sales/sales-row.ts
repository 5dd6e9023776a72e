/**
 * One day of one product's sales, the shape of `sales.csv` and of every history the engine reads (a real shop's
 * or the synthetic market's). `stock_on_hand` is units at the start of the day; `promoted` a known promotion that
 * day (0/1 or a share in [0, 1]; absent: none). Prices in currency units.
 */
export interface SalesRow {
  date: string;
  product_id: string;
  price: number;
  units_sold: number;
  stock_on_hand: number | null;
  /** Share of the day the product was promoted (0/1, or e.g. the share of stores with a display); absent: 0. */
  promoted?: number;
}

/**
 * A day that ended out of stock: it sold what it had, so it only bounds demand from below (censored). Every fit
 * and estimate of demand leaves these days out.
 */
export function isStockOutDay(row: Pick<SalesRow, "units_sold" | "stock_on_hand">): boolean {
  return row.stock_on_hand !== null && row.units_sold >= row.stock_on_hand;
}

/**
 * Each product's rows, in history order. A function of its own, not a loop inside a caller's: a loop over tens of
 * thousands of rows gets its function optimised on the stack, and the learner's, which also makes the plan's
 * closures, then deoptimised at a constructor each plan.
 */
export function rowsByProduct(history: readonly SalesRow[]): Map<string, SalesRow[]> {
  const out = new Map<string, SalesRow[]>();
  // A history runs day by day with its products in the same order each day: the list after the last row's is tried
  // first (a string compare, not a hash lookup), the map only where the order breaks.
  const lists: SalesRow[][] = [];
  const slots = new Map<string, number>();
  let next = 0;
  for (const r of history) {
    const id = r.product_id;
    let at = next;
    let rows = lists[at];
    if (rows === undefined || (rows[0] as SalesRow).product_id !== id) {
      const known = slots.get(id);
      if (known === undefined) {
        // Made with its first row, not empty and then pushed: 0.75 MB of lists a 36,500-row history, not 1.18.
        at = lists.length;
        rows = [r];
        lists.push(rows);
        slots.set(id, at);
        out.set(id, rows);
        next = at + 1 === lists.length ? 0 : at + 1;
        continue;
      }
      at = known;
      rows = lists[at] as SalesRow[];
    }
    rows.push(r);
    next = at + 1 === lists.length ? 0 : at + 1;
  }
  return out;
}
