import { EVE_DAYS, holidayOfEve } from "../base/holiday-calendar.js";

/** One product's history days: day numbers (`dayNumber`), units, and the means of a fit without any level. */
export interface DaysAndMeans {
  readonly day: Int32Array;
  readonly units: Float64Array;
  readonly mu: Float64Array;
}

export interface HolidayLift {
  /** log of the multiplier of a holiday eve's rate (0 when the history does not show one). */
  readonly logLift: number;
  /** Its standard error (across holidays); NaN with fewer than `MIN_HOLIDAYS`. */
  readonly stdError: number;
  /** Holidays whose eves the history holds. */
  readonly holidays: number;
}

/** Days each side of a holiday's eves that are its baseline (the level of those weeks). */
const AROUND_DAYS = 14;
/** Fewer holidays than this cannot tell a lift from the weeks' own noise: no lift. */
const MIN_HOLIDAYS = 3;
/** Student's t, 97.5 % quantile, by degrees of freedom 1..10 (beyond: 2). */
const T_975 = [12.71, 4.3, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23];

/**
 * The company's lift on the eves of feast holidays (`holidayOfEve`), pooled over its products: for each holiday the
 * history holds, its eves' units against the means, relative to the same ratio over the weeks around it (so a level
 * that moved is no lift), then the mean of the holidays' log ratios. The holidays, not the days, are the
 * replicates: the eves of one holiday share whatever else moved that week (a mailer), so their days are not
 * independent evidence. Kept only where a t-test across the holidays finds it (two-sided 5 %): a history without
 * such shopping keeps every eve at the usual rate. One year of history holds Easter, Memorial Day, Independence Day
 * and Labor Day before the year-end holidays, which this lift, learned from those, is the only warning of.
 */
export function holidayLift(products: readonly DaysAndMeans[]): HolidayLift {
  // Per holiday: units and means on its eves and around them, over every product.
  const sums = new Map<number, HolidaySums>();
  for (const p of products) addProduct(sums, p);
  const logs: number[] = [];
  for (const s of sums.values()) {
    if (s.eveU > 0 && s.eveM > 0 && s.aroundU > 0 && s.aroundM > 0)
      logs.push(Math.log(s.eveU / s.eveM) - Math.log(s.aroundU / s.aroundM));
  }
  const n = logs.length;
  if (n < MIN_HOLIDAYS) return { logLift: 0, stdError: Number.NaN, holidays: n };
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(logs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const se = sd / Math.sqrt(n);
  const critical = T_975[n - 2] ?? 2;
  return { logLift: Math.abs(mean) > critical * se ? mean : 0, stdError: se, holidays: n };
}

/**
 * `addProduct`'s table (`starts`, `filled`: span + 1 and span entries; `around`: the entries listed), grown to the
 * longest span met and written before read in each call: three arrays a product, each a backing store outside V8's
 * heap.
 */
let startsScratch = new Int32Array(512);
let filledScratch = new Int32Array(512);
let aroundScratch = new Float64Array(512);

/** Units and means of one holiday on its eves and on the days around them. */
interface HolidaySums {
  eveU: number;
  eveM: number;
  aroundU: number;
  aroundM: number;
}

function sumsOf(sums: Map<number, HolidaySums>, holiday: number): HolidaySums {
  let s = sums.get(holiday);
  if (s === undefined) {
    s = { eveU: 0, eveM: 0, aroundU: 0, aroundM: 0 };
    sums.set(holiday, s);
  }
  return s;
}

/**
 * One product's days added to `sums`. A function of its own: its loop over the product's days made holidayLift,
 * which runs once a plan, hot, and TurboFan compiled it on the stack before its end had run, then deoptimised
 * there and compiled it again in the next plan.
 */
function addProduct(sums: Map<number, HolidaySums>, p: DaysAndMeans): void {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const d of p.day) {
    first = Math.min(first, d);
    last = Math.max(last, d);
  }
  // Each holiday near the product's days, and its eves.
  const near = new Set<number>();
  for (let d = first - AROUND_DAYS; d <= last + AROUND_DAYS + EVE_DAYS; d++) {
    const h = holidayOfEve(d);
    if (h !== null) near.add(h);
  }
  if (!(first <= last)) return;
  // The holidays around each day of the product's span, in `near`'s order (a day's list from `starts[o]` to
  // `starts[o + 1]` of `around`, o its offset from the first day), each marked over its window once: most days are
  // around none, and testing each day against every holiday near the span was most of this function's time. Each
  // holiday's sums still take its days in the days' order.
  const span = last - first + 1;
  if (startsScratch.length < span + 1) {
    startsScratch = new Int32Array(2 * (span + 1));
    filledScratch = new Int32Array(2 * (span + 1));
  }
  const starts = startsScratch.subarray(0, span + 1).fill(0);
  for (const h of near) {
    const from = Math.max(first, h - EVE_DAYS - AROUND_DAYS);
    const to = Math.min(last, h + AROUND_DAYS);
    // The holiday itself is its own story (closed, or the feast).
    for (let d = from; d <= to; d++) if (d !== h) starts[d - first + 1] = (starts[d - first + 1] ?? 0) + 1;
  }
  for (let o = 0; o < span; o++) starts[o + 1] = (starts[o + 1] ?? 0) + (starts[o] ?? 0);
  const listed = starts[span] ?? 0;
  if (aroundScratch.length < listed) aroundScratch = new Float64Array(2 * listed);
  const around = aroundScratch;
  const filled = filledScratch;
  filled.set(starts.subarray(0, span));
  for (const h of near) {
    const from = Math.max(first, h - EVE_DAYS - AROUND_DAYS);
    const to = Math.min(last, h + AROUND_DAYS);
    for (let d = from; d <= to; d++) {
      if (d === h) continue;
      const o = d - first;
      const k = filled[o] ?? 0;
      around[k] = h;
      filled[o] = k + 1;
    }
  }
  for (let i = 0; i < p.day.length; i++) {
    const d = p.day[i] ?? 0;
    const u = p.units[i] ?? 0;
    const m = p.mu[i] ?? 0;
    const eveOf = holidayOfEve(d);
    if (eveOf !== null) {
      const s = sumsOf(sums, eveOf);
      s.eveU += u;
      s.eveM += m;
      continue;
    }
    const o = d - first;
    for (let k = starts[o] ?? 0, end = starts[o + 1] ?? 0; k < end; k++) {
      const s = sumsOf(sums, around[k] ?? Number.NaN);
      s.aroundU += u;
      s.aroundM += m;
    }
  }
}
