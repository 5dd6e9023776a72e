/**
 * Today's price under a demand model for the rest of the season, by the fluid (LP) relaxation solved with a bid
 * price: each day charges argmax (price - cost - bid) x rate; the bid is the smallest that keeps the season's
 * expected sales within the stock. Where the stock falls between two bids' sales the LP mixes their prices, and
 * today's price is drawn from that mix (as Ferreira, Simchi-Levi & Wang's TS-update draws from its LP).
 */
export interface FluidInput {
  readonly prices: readonly number[];
  readonly unitCost: number;
  /** Expected sales a day at each price for a day of volume 1 (already capped at 1 for Bernoulli demand). */
  readonly sales: readonly number[];
  /** Volume of each selling day left, today first. */
  readonly volumes: ArrayLike<number>;
  /** Units left; Infinity when unlimited. */
  readonly stock: number;
}

export interface FluidChoice {
  /** The price index at the binding bid and at the bid just below it, and the LP's weight on the second. */
  readonly index: number;
  readonly lowerBidIndex: number;
  readonly lowerBidWeight: number;
  /** The binding bid price on the stock (0 where the stock does not bind), currency units per unit. */
  readonly bid: number;
}

const BISECTIONS = 40;

function bestAt(input: FluidInput, bid: number, volume: number): number {
  const { prices, sales, unitCost } = input;
  let best = 0;
  let value = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < prices.length; i++) {
    const v = ((prices[i] ?? 0) - unitCost - bid) * (sales[i] ?? 0) * volume;
    if (v > value + 1e-12) {
      value = v;
      best = i;
    }
  }
  return best;
}

/** The days left grouped by distinct volume, in order of first appearance. */
interface VolumeGroups {
  readonly volumes: number[];
  readonly days: number[];
}

/** Expected season sales and today's pick under bid `bid`. */
function salesAt(input: FluidInput, bid: number, groups: VolumeGroups): number {
  let total = 0;
  for (let g = 0; g < groups.volumes.length; g++) {
    const volume = groups.volumes[g] ?? 0;
    total += (input.sales[bestAt(input, bid, volume)] ?? 0) * volume * (groups.days[g] ?? 0);
  }
  return total;
}

export function fluidChoice(input: FluidInput): FluidChoice {
  const today = input.volumes[0] ?? 1;
  const unbound = bestAt(input, 0, today);
  if (!Number.isFinite(input.stock))
    return { index: unbound, lowerBidIndex: unbound, lowerBidWeight: 0, bid: 0 };
  const counts = new Map<number, number>();
  for (let d = 0; d < input.volumes.length; d++) {
    const v = input.volumes[d] ?? 0;
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const volumes: VolumeGroups = { volumes: [...counts.keys()], days: [...counts.values()] };
  const free = salesAt(input, 0, volumes);
  if (free <= input.stock) return { index: unbound, lowerBidIndex: unbound, lowerBidWeight: 0, bid: 0 };
  let lo = 0;
  let hi = Math.max(...input.prices) - input.unitCost + 1;
  for (let k = 0; k < BISECTIONS; k++) {
    const mid = (lo + hi) / 2;
    if (salesAt(input, mid, volumes) <= input.stock) hi = mid;
    else lo = mid;
  }
  const sHi = salesAt(input, hi, volumes);
  const sLo = salesAt(input, lo, volumes);
  const weight = sLo > sHi ? Math.min(1, Math.max(0, (input.stock - sHi) / (sLo - sHi))) : 0;
  return {
    index: bestAt(input, hi, today),
    lowerBidIndex: bestAt(input, lo, today),
    lowerBidWeight: weight,
    bid: hi,
  };
}
