import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nearestPriceIndex } from "./nearest-price.js";

/** The rule as it reads: the first index in [lo, hi] at the least absolute distance. */
function byScan(prices: readonly number[], price: number, lo: number, hi: number): number {
  let best = lo;
  for (let i = lo; i <= hi; i++) {
    if (Math.abs((prices[i] ?? Number.NaN) - price) < Math.abs((prices[best] ?? Number.NaN) - price))
      best = i;
  }
  return best;
}

describe("nearestPriceIndex", () => {
  it("is the first nearest price within the range, the lower on a tie, clamping outside it", () => {
    const cents = fc.integer({ min: 1, max: 4000 }).map((c) => c / 100);
    fc.assert(
      fc.property(
        fc.array(cents, { minLength: 1, maxLength: 30 }),
        cents,
        fc.nat(),
        fc.nat(),
        (raw, price, x, y) => {
          const prices = [...raw].sort((a, b) => a - b);
          const lo = x % prices.length;
          const hi = lo + (y % (prices.length - lo));
          expect(nearestPriceIndex(prices, price, lo, hi)).toBe(byScan(prices, price, lo, hi));
        },
      ),
      { seed: 25, numRuns: 2000 },
    );
  });

  it("takes the lower price on an exact tie", () => {
    expect(nearestPriceIndex([1, 2, 3], 2.5)).toBe(1);
    expect(nearestPriceIndex([1, 2, 2, 3], 2.2)).toBe(1);
  });
});
