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
  /** Volume of each selling day left, today first, from index `from` (default 0) on. */
  readonly volumes: ArrayLike<number>;
  readonly from?: number;
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

/** A path's `loBest` / `hiBest` where its last step that way was a near-tie's (each volume its own scan). */
const NEAR = -2;

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

/** Relative rounding allowance of `sharedBest`'s comparisons (a few units in the last place of each product). */
const ROUNDING = 4e-15;

/**
 * `bestAt`'s index at `bid` for every volume in [`least`, `most`] (positive) from one scan, or -1 where a comparison
 * of the scan is too close to call for some volume (its 1e-12 tie margin is absolute, so a near-tie can go either way
 * with the volume), and then each volume takes its own scan. Every comparison it answers has the same outcome as
 * `bestAt`'s for each of those volumes, rounding included, so the index is `bestAt`'s.
 */
function sharedBest(input: FluidInput, bid: number, least: number, most: number): number {
  const { prices, sales, unitCost } = input;
  let best = 0;
  let value = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < prices.length; i++) {
    const w = ((prices[i] ?? 0) - unitCost - bid) * (sales[i] ?? 0);
    if (value === Number.NEGATIVE_INFINITY) {
      // Nothing taken yet: any value but NaN and -Infinity beats -Infinity at every volume.
      if (w > value) {
        if (!Number.isFinite(w)) return -1;
        value = w;
        best = i;
      }
      continue;
    }
    // NaN loses every comparison at every volume; an infinite value is left to each volume's own scan.
    if (Number.isNaN(w)) continue;
    if (!Number.isFinite(w)) return -1;
    const diff = w - value;
    const error = ROUNDING * (Math.abs(w) + Math.abs(value)) * most + 1e-27;
    const highest = diff >= 0 ? diff * most : diff * least;
    const lowest = diff >= 0 ? diff * least : diff * most;
    if (lowest > 1e-12 + error) {
      value = w;
      best = i;
    } else if (!(highest < 1e-12 - error)) return -1;
  }
  return best;
}

/** The days left grouped by distinct volume, in order of first appearance (`volumeGroups`). */
export interface VolumeGroups {
  readonly volumes: readonly number[];
  readonly days: readonly number[];
  /** The smallest and largest volume. */
  readonly least: number;
  readonly most: number;
}

/**
 * The days left (`FluidInput.volumes` from `from` on) grouped by distinct volume: a caller planning several times on
 * one day passes them once.
 */
export function volumeGroups(volumes: ArrayLike<number>, from = 0): VolumeGroups {
  const counts = new Map<number, number>();
  for (let d = from; d < volumes.length; d++) {
    const v = volumes[d] ?? 0;
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const distinct = [...counts.keys()];
  return {
    volumes: distinct,
    days: [...counts.values()],
    least: Math.min(...distinct),
    most: Math.max(...distinct),
  };
}

/**
 * What one caller's plans of one product share across its days: the same prices, unit cost and sales (a plan's
 * posterior mean, say), with the days left and the stock changing. The bisection asks the same bids every day (its
 * tree of midpoints is fixed by the prices and cost), and `sharedBest`'s answer at a bid depends on the volumes only
 * through their least and most, so the answers are kept along the tree. A plan's days left are a tail of the day
 * before's, so their least and most only close in: an index `sharedBest` gave over a range is what it gives over
 * any range inside it (each comparison it answered held at every volume of the range; its products and tolerance
 * are monotone in the ends), so the answers stand and only its near-ties (-1) are asked again (`generation`).
 */
export interface FluidMemo {
  least: number;
  most: number;
  /** Counts the narrowings of [least, most]: a -1 answered under another count is asked again. */
  generation: number;
  /** The answer at bid 0 and its generation, and the tree of the bisection's midpoints (null until first asked). */
  zero: number | undefined;
  zeroAt: number;
  root: BidNode | null;
  /** The last bisection's path, summed up (`BisectionPath`); null before one, or where a near-tie made it per volume. */
  path: BisectionPath | null;
  /** `bestAt` bid 0 by first day's volume (`TodayIndices`). */
  readonly unbound: TodayIndices;
  /** The choice handed back, rewritten by each call through the memo (a plan reads it before its next day). */
  readonly choice: { index: number; lowerBidIndex: number; lowerBidWeight: number; bid: number };
}

/**
 * `bestAt`'s answers at one bid by the first day's volume: a plan's days cycle through a few volumes (the weekdays),
 * each a scan of the prices at every call where only the last volume was kept.
 */
interface TodayIndices {
  readonly bid: number;
  readonly volumes: number[];
  readonly indices: number[];
}

/** Volumes `TodayIndices` keeps (a week's, holidays and promotions aside); beyond them it starts over. */
const TODAYS = 16;

/** The first day's volume. */
function todayOf(input: FluidInput): number {
  return input.volumes[input.from ?? 0] ?? 1;
}

/** The Map's key equality (SameValueZero) of two numbers. */
function sameValueZero(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** `Object.is` of two numbers, which the compiler compares unboxed. */
function sameNumber(a: number, b: number): boolean {
  return a === b ? a !== 0 || 1 / a === 1 / b : Number.isNaN(a) && Number.isNaN(b);
}

function todayIndices(bid: number): TodayIndices {
  return { bid, volumes: [], indices: [] };
}

/**
 * `bestAt` at `known`'s bid on the first day left (`FluidInput.from`), through `known`'s answers. The day is read
 * here, not passed: a number passed to or handed back from a call the compiler does not inline is a heap number, and
 * the plan's memos made ~20 of them a row.
 */
function bestToday(input: FluidInput, known: TodayIndices): number {
  const today = todayOf(input);
  const { volumes, indices } = known;
  for (let i = 0; i < volumes.length; i++)
    if (sameNumber(volumes[i] as number, today)) return indices[i] as number;
  const best = bestAt(input, known.bid, today);
  if (volumes.length >= TODAYS) {
    volumes.length = 0;
    indices.length = 0;
  }
  volumes.push(today);
  indices.push(best);
  return best;
}

/**
 * `bestAt` a path's `hi` and `lo` by the first day's volume, side by side: one scan of the volumes for both ends
 * (the same volumes, asked together, as two `TodayIndices` kept them).
 */
interface TodayEnds {
  readonly volumes: number[];
  readonly indices: number[];
  readonly lowers: number[];
}

/** The place in `path`'s ends of the first day's volume, asked and kept where it is new (read here: `bestToday`). */
function endsToday(input: FluidInput, path: BisectionPath): number {
  const today = todayOf(input);
  const { volumes, indices, lowers } = path.ends;
  for (let i = 0; i < volumes.length; i++) if (sameNumber(volumes[i] as number, today)) return i;
  const index = bestAt(input, path.hi, today);
  const lower = bestAt(input, path.lo, today);
  if (volumes.length >= TODAYS) {
    volumes.length = 0;
    indices.length = 0;
    lowers.length = 0;
  }
  volumes.push(today);
  indices.push(index);
  lowers.push(lower);
  return volumes.length - 1;
}

/**
 * A bisection's path through the memo's tree by what decided it: within one call a midpoint's step depends only on
 * whether its season sales fit the stock, so the same answers for the indices (and near-tie bids) the path met give
 * the same path, and its ends, to the bit. A plan's next day mostly asks the same.
 */
interface BisectionPath {
  /** The distinct shared indices the path met, and whether each one's season sales fitted the stock. */
  readonly bests: readonly number[];
  readonly fits: readonly boolean[];
  /**
   * The midpoints whose pick was a near-tie (-1: each volume its own scan), and whether their sales fitted. The
   * bisection closes in on the bid where the pick changes, so ~3 in 4 of the paths that bind end on one; asked
   * again by their own scan, not a new bisection. A later generation may answer such a midpoint with a shared index,
   * whose sales are the per-volume sum's to the bit (one index for every group, the same products in the same order).
   */
  readonly nearBids: readonly number[];
  readonly nearFits: readonly boolean[];
  readonly lo: number;
  readonly hi: number;
  /** The shared index whose sales the last step up (`lo`) and down (`hi`) took; -1 where none did, -2 a near-tie. */
  readonly loBest: number;
  readonly hiBest: number;
  /** `bestAt` `hi` and `lo` by first day's volume. */
  readonly ends: TodayEnds;
}

interface BidNode {
  best: number;
  /** The memo's generation `best` was answered under (only a -1 is asked again in a later one). */
  at: number;
  /** The next midpoint where the stock held at this one (`hi` moved down), and where it did not. */
  below: BidNode | null;
  above: BidNode | null;
}

export function fluidMemo(): FluidMemo {
  return {
    least: Number.NaN,
    most: Number.NaN,
    generation: 0,
    zero: undefined,
    zeroAt: 0,
    root: null,
    path: null,
    unbound: todayIndices(0),
    choice: { index: 0, lowerBidIndex: 0, lowerBidWeight: 0, bid: 0 },
  };
}

/** `sharedBest` over the groups' volumes, -1 where they do not bound it. */
function sharedOf(input: FluidInput, bid: number, groups: VolumeGroups): number {
  return groups.least > 0 && groups.most < Number.POSITIVE_INFINITY
    ? sharedBest(input, bid, groups.least, groups.most)
    : -1;
}

/**
 * One `fluidChoice`'s season sales by the shared index they were summed for (valid where `totalCalls` holds the
 * call's number): a bisection visits a few indices 40 times, and each sum is the same arithmetic every time.
 */
let totals = new Float64Array(32);
let totalCalls = new Int32Array(32);
let call = 0;

/**
 * `volumeGroups` of the tails of a season's `volumes` (from day `d` to the end, `tailAt`), as one set of groups
 * moved a day at a time: a plan asks each day's tail once, in order, and a tail's groups differ from the day
 * before's by that day alone (its volume's count falls by one, and the volume moves to the place of its next day in
 * the order of first appearance, or leaves). Groups kept for every day were three allocations a day and product.
 */
export interface SeasonTails {
  readonly volumes: ArrayLike<number>;
  /** By day: the next day of the same volume (SameValueZero, as `volumeGroups`' Map matches its keys), else -1. */
  readonly next: Int32Array;
  /** The day the groups are of (-1 before the first ask). */
  day: number;
  /** Each group's first day, in the groups' order. */
  readonly firsts: number[];
  readonly groups: { readonly volumes: number[]; readonly days: number[]; least: number; most: number };
}

export function seasonTails(volumes: ArrayLike<number>): SeasonTails {
  const next = new Int32Array(volumes.length);
  // Each distinct volume's latest day so far, scanned: a season has a few volumes, and a Map hashed a heap number a day.
  const seen: number[] = [];
  const latest: number[] = [];
  for (let d = volumes.length - 1; d >= 0; d--) {
    const v = volumes[d] ?? 0;
    let g = 0;
    while (g < seen.length && !sameValueZero(seen[g] as number, v)) g++;
    if (g === seen.length) {
      next[d] = -1;
      seen.push(v);
      latest.push(d);
    } else {
      next[d] = latest[g] as number;
      latest[g] = d;
    }
  }
  return {
    volumes,
    next,
    day: -1,
    firsts: [],
    groups: { volumes: [], days: [], least: Number.NaN, most: Number.NaN },
  };
}

/**
 * The days from `d` on grouped by volume, as `volumeGroups` groups them: the tails' own groups, valid until the
 * next ask. A day after the last asked moves them on; an earlier one builds them again.
 */
export function tailAt(tails: SeasonTails, d: number): VolumeGroups {
  const { volumes, next, firsts, groups } = tails;
  if (d >= volumes.length || d < 0) return volumeGroups(volumes, Math.max(0, d));
  if (d === tails.day) return groups;
  // Whether the set of volumes changed (moving a day on mostly only reorders them and lowers a count).
  let changed = true;
  if (tails.day < 0 || d < tails.day || d - tails.day > volumes.length - d) {
    firsts.length = 0;
    groups.volumes.length = 0;
    groups.days.length = 0;
    // Each volume's first day from `d` on, in order, and its count from there.
    for (let e = d; e < volumes.length; e++) {
      const v = volumes[e] ?? 0;
      let at = -1;
      for (let g = 0; g < groups.volumes.length; g++) {
        const x = groups.volumes[g] as number;
        if (x === v || (Number.isNaN(x) && Number.isNaN(v))) {
          at = g;
          break;
        }
      }
      if (at < 0) {
        firsts.push(e);
        groups.volumes.push(v);
        groups.days.push(1);
      } else groups.days[at] = (groups.days[at] as number) + 1;
    }
  } else {
    changed = false;
    for (let day = tails.day; day < d; day++) {
      // The day leaving is the first group's first day.
      const count = (groups.days[0] as number) - 1;
      const leaving = groups.volumes[0] as number;
      const first = next[day] as number;
      const size = groups.volumes.length;
      let k = 1;
      if (count === 0) {
        for (; k < size; k++) {
          firsts[k - 1] = firsts[k] as number;
          groups.volumes[k - 1] = groups.volumes[k] as number;
          groups.days[k - 1] = groups.days[k] as number;
        }
        firsts.length = size - 1;
        groups.volumes.length = size - 1;
        groups.days.length = size - 1;
        changed = true;
        continue;
      }
      for (; k < size && (firsts[k] as number) < first; k++) {
        firsts[k - 1] = firsts[k] as number;
        groups.volumes[k - 1] = groups.volumes[k] as number;
        groups.days[k - 1] = groups.days[k] as number;
      }
      const moved = volumes[first] ?? 0;
      // Its next day matched it as a Map key would, so +0 may follow -0: a new zero's sign is a new volume.
      if (!sameNumber(moved, leaving)) changed = true;
      firsts[k - 1] = first;
      groups.volumes[k - 1] = moved;
      groups.days[k - 1] = count;
    }
  }
  tails.day = d;
  // Math.min / max of a list is their fold, so this is `volumeGroups`' Math.min(...distinct) to the bit; the fold
  // does not depend on the order (-0 below +0 and NaN winning either way), so the same volumes keep their ends.
  if (!changed) return groups;
  let least = groups.volumes[0] as number;
  let most = least;
  for (let g = 1; g < groups.volumes.length; g++) {
    const x = groups.volumes[g] as number;
    least = Math.min(least, x);
    most = Math.max(most, x);
  }
  groups.least = least;
  groups.most = most;
  return groups;
}

/** Expected season sales under bid `bid`, where `shared` is `sharedOf` at that bid. */
function salesAt(input: FluidInput, bid: number, groups: VolumeGroups, shared: number): number {
  return shared >= 0 ? sharedSales(input, groups, shared) : perVolumeSales(input, bid, groups);
}

/**
 * `salesAt` where one index serves every group: the sales of the plans' common case, kept apart from the bid (a
 * number passed to a call the compiler does not inline is a heap number) and from the per-volume scan, so that it
 * inlines.
 */
function sharedSales(input: FluidInput, groups: VolumeGroups, shared: number): number {
  if (totalCalls[shared] === call) return totals[shared] as number;
  const sales = input.sales[shared] ?? 0;
  const { volumes, days } = groups;
  let total = 0;
  for (let g = 0; g < volumes.length; g++) total += sales * (volumes[g] as number) * (days[g] as number);
  totals[shared] = total;
  totalCalls[shared] = call;
  return total;
}

/** `salesAt` where a near-tie makes the pick depend on the volume: each group takes its own scan. */
function perVolumeSales(input: FluidInput, bid: number, groups: VolumeGroups): number {
  let total = 0;
  for (let g = 0; g < groups.volumes.length; g++) {
    const volume = groups.volumes[g] ?? 0;
    total += (input.sales[bestAt(input, bid, volume)] ?? 0) * volume * (groups.days[g] ?? 0);
  }
  return total;
}

/**
 * Today's price by the fluid plan. `groups` are `volumeGroups(input.volumes, input.from)` where the caller has them;
 * `memo` (`fluidMemo`) where it plans the same prices, cost and sales on several days. Through a memo the choice is
 * the memo's own object, rewritten by its next call.
 */
export function fluidChoice(input: FluidInput, groups?: VolumeGroups, memo?: FluidMemo): FluidChoice {
  const from = input.from ?? 0;
  if (!Number.isFinite(input.stock)) return unboundChoice(input, memo);
  const volumes = groups ?? volumeGroups(input.volumes, from);
  if (totals.length < input.prices.length) {
    totals = new Float64Array(2 * input.prices.length);
    totalCalls = new Int32Array(2 * input.prices.length);
  }
  // A new number for this call's sums; at the end of the range the stamps start over.
  if (call === 2_147_483_647) {
    call = 0;
    totalCalls.fill(0);
  }
  call++;
  if (memo !== undefined && (memo.least !== volumes.least || memo.most !== volumes.most)) {
    const inside = volumes.least >= memo.least && volumes.most <= memo.most;
    memo.least = volumes.least;
    memo.most = volumes.most;
    if (inside) memo.generation++;
    else {
      memo.zero = undefined;
      memo.root = null;
      memo.path = null;
    }
  }
  let zero = memo?.zero;
  if (zero === undefined || (zero < 0 && memo !== undefined && memo.zeroAt !== memo.generation)) {
    zero = sharedOf(input, 0, volumes);
    if (memo !== undefined) {
      memo.zero = zero;
      memo.zeroAt = memo.generation;
    }
  }
  const free = salesAt(input, 0, volumes, zero);
  if (free <= input.stock) return unboundChoice(input, memo);
  if (memo !== undefined && alongPath(input, volumes, memo, free)) return memo.choice;
  let lo = 0;
  let hi = Math.max(...input.prices) - input.unitCost + 1;
  // The sales at each end, kept from the bisection (NaN: the first `hi` is never evaluated by it).
  let sLo = free;
  let sHi = Number.NaN;
  // The path's summary for the memo (dropped where a step had no shared index).
  const bests: number[] = [];
  const fits: boolean[] = [];
  const nearBids: number[] = [];
  const nearFits: boolean[] = [];
  let loBest = -1;
  let hiBest = -1;
  // The memo's node of this midpoint, and where a new one hangs (the root, or its parent's side).
  let node = memo?.root ?? null;
  let parent: BidNode | null = null;
  let below = false;
  for (let k = 0; k < BISECTIONS; k++) {
    const mid = (lo + hi) / 2;
    if (memo !== undefined && node === null) {
      node = { best: sharedOf(input, mid, volumes), at: memo.generation, below: null, above: null };
      if (parent === null) memo.root = node;
      else if (below) parent.below = node;
      else parent.above = node;
    } else if (memo !== undefined && node !== null && node.best < 0 && node.at !== memo.generation) {
      node.best = sharedOf(input, mid, volumes);
      node.at = memo.generation;
    }
    const shared = node === null ? sharedOf(input, mid, volumes) : node.best;
    const season = salesAt(input, mid, volumes, shared);
    below = season <= input.stock;
    if (below) {
      hi = mid;
      sHi = season;
      hiBest = shared < 0 ? NEAR : shared;
    } else {
      lo = mid;
      sLo = season;
      loBest = shared < 0 ? NEAR : shared;
    }
    if (memo !== undefined) {
      if (shared < 0) {
        nearBids.push(mid);
        nearFits.push(below);
      } else if (!bests.includes(shared)) {
        bests.push(shared);
        fits.push(below);
      }
    }
    parent = node;
    node = node === null ? null : below ? node.below : node.above;
  }
  if (Number.isNaN(sHi)) sHi = salesAt(input, hi, volumes, sharedOf(input, hi, volumes));
  const today = todayOf(input);
  const index = bestAt(input, hi, today);
  const lowerBidIndex = bestAt(input, lo, today);
  if (memo !== undefined)
    memo.path = {
      bests,
      fits,
      nearBids,
      nearFits,
      lo,
      hi,
      loBest,
      hiBest,
      ends: { volumes: [today], indices: [index], lowers: [lowerBidIndex] },
    };
  return choiceOf(memo, index, lowerBidIndex, weightOf(input.stock, sLo, sHi), hi);
}

/**
 * Where this call's stock and days left answer the indices of the memo's last path as they were answered
 * (`samePath`), the choice at its ends, written into the memo's (true); else false. A function of its own so that
 * its sums inline into it: `fluidChoice` has too many calls for the compiler's budget, and a number crossing a call
 * that is not inlined is a heap number (the plans' memos made ~30 of them a row).
 */
function alongPath(input: FluidInput, volumes: VolumeGroups, memo: FluidMemo, free: number): boolean {
  const known = memo.path;
  if (known === null || !samePath(input, volumes, known)) return false;
  const sLo =
    known.loBest === NEAR
      ? perVolumeSales(input, known.lo, volumes)
      : known.loBest < 0
        ? free
        : sharedSales(input, volumes, known.loBest);
  const sHi =
    known.hiBest === NEAR
      ? perVolumeSales(input, known.hi, volumes)
      : known.hiBest < 0
        ? salesAt(input, known.hi, volumes, sharedOf(input, known.hi, volumes))
        : sharedSales(input, volumes, known.hiBest);
  const choice = memo.choice;
  const ends = known.ends;
  const at = endsToday(input, known);
  choice.index = ends.indices[at] as number;
  choice.lowerBidIndex = ends.lowers[at] as number;
  choice.lowerBidWeight = weightOf(input.stock, sLo, sHi);
  choice.bid = known.hi;
  return true;
}

/** Whether this call's stock and days left answer the indices of `path` as they were answered. */
function samePath(input: FluidInput, groups: VolumeGroups, path: BisectionPath): boolean {
  for (let i = 0; i < path.bests.length; i++) {
    const best = path.bests[i] as number;
    if (sharedSales(input, groups, best) <= input.stock !== path.fits[i]) return false;
  }
  for (let i = 0; i < path.nearBids.length; i++)
    if (perVolumeSales(input, path.nearBids[i] as number, groups) <= input.stock !== path.nearFits[i])
      return false;
  return true;
}

/** The LP's weight on the price of the bid just below the binding one: the share of the stock between their sales. */
function weightOf(stock: number, sLo: number, sHi: number): number {
  return sLo > sHi ? Math.min(1, Math.max(0, (stock - sHi) / (sLo - sHi))) : 0;
}

/**
 * The choice where the stock does not bind: today's pick at bid 0, asked only here (a binding day, ~9 in 10 of a
 * plan's, never reads it).
 */
function unboundChoice(input: FluidInput, memo: FluidMemo | undefined): FluidChoice {
  const unbound = memo === undefined ? bestAt(input, 0, todayOf(input)) : bestToday(input, memo.unbound);
  return choiceOf(memo, unbound, unbound, 0, 0);
}

/** The choice: the memo's own object where there is one (three plans a row, ~27,000 a plan), else a new one. */
function choiceOf(
  memo: FluidMemo | undefined,
  index: number,
  lowerBidIndex: number,
  lowerBidWeight: number,
  bid: number,
): FluidChoice {
  if (memo === undefined) return { index, lowerBidIndex, lowerBidWeight, bid };
  const choice = memo.choice;
  choice.index = index;
  choice.lowerBidIndex = lowerBidIndex;
  choice.lowerBidWeight = lowerBidWeight;
  choice.bid = bid;
  return choice;
}
