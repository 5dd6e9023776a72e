import type { SalesRow } from "./sales-row.js";

/** The lowest and highest of `prices` (currency units); null for none. */
export function priceRange(prices: Iterable<number>): [number, number] | null {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const p of prices) {
    lo = Math.min(lo, p);
    hi = Math.max(hi, p);
  }
  return lo <= hi ? [lo, hi] : null;
}

/**
 * The observed price range of a product: the lowest and highest price its history was sold at (currency units), or
 * null when it has no history. The plan's explanation and the server's exploration report read it here; the
 * learner takes the same `priceRange` of the prices it counted days at.
 */
export function observedPriceRange(
  history: readonly Pick<SalesRow, "product_id" | "price">[],
  productId: string,
): [number, number] | null {
  return priceRange(history.flatMap((r) => (r.product_id === productId ? [r.price] : [])));
}

/**
 * Whether `price` leaves the range (beyond a rounding error): an exploratory price. The range read by index, not
 * destructured: a destructured parameter is read through the array's iterator where the call is not optimised, an
 * iterator and its results for the collector on each of a learning plan's ~9,000 rows.
 */
export function leavesRange(price: number, range: readonly [number, number]): boolean {
  return price < range[0] - 1e-9 || price > range[1] + 1e-9;
}
