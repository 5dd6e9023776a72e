/**
 * The engine's one nearest-price rule: the index of the price in `prices` (ascending, in currency units) closest
 * to `price` by absolute distance, the lower one on a tie (and the first of equal prices), searched within the
 * inclusive index range `[lo, hi]` (default: the whole grid), so a price outside it clamps to its nearer end.
 * Every "which grid price is this" in the engine asks here; each used to carry its own search, with its own tie.
 */
export function nearestPriceIndex(
  prices: ArrayLike<number>,
  price: number,
  lo = 0,
  hi = prices.length - 1,
): number {
  // Binary search for the first price at or above `price`: the learner asks for every history day.
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >> 1;
    if ((prices[mid] ?? Number.NaN) < price) a = mid + 1;
    else b = mid;
  }
  let best = a;
  const below = prices[a - 1];
  if (a > lo && below !== undefined && price - below <= (prices[a] ?? Number.NaN) - price) best = a - 1;
  while (best > lo && prices[best - 1] === prices[best]) best--;
  return best;
}
