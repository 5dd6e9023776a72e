import { allowedRange } from "../problem/action-range.js";
import { type PricingProblem, type ProductPolicy, SHUTOFF } from "../problem/pricing-problem.js";
import { demandPmf, demandVariance, expectedDemand } from "../problem/sales-distribution.js";

export interface OptimumResult {
  /** Exact optimal expected margin over the horizon, currency units. */
  readonly value: number;
  /** The optimal policy (a lookup table); unlimited stock ignores `stock`. */
  readonly policy: ProductPolicy;
  /** Whether the previous price is part of the state (max daily change set). */
  readonly tracksPreviousPrice: boolean;
}

/**
 * Exact finite-horizon DP. State (day, stock) — plus the previous price when a max daily change is set; units
 * sold = min(D, stock). Unlimited stock has no stock state: a per-day argmax, or a DP over the previous price.
 */
export function solveOptimum(problem: PricingProblem): OptimumResult {
  const T = problem.horizon;
  const A = problem.prices.length;
  const constrained = problem.maxDailyChange !== null;
  // Previous-price slots: one per grid index plus one for "the initial price" (passed to policies as -1).
  const P = constrained ? A + 1 : 1;
  const ranges = Array.from({ length: P }, (_, prev) =>
    constrained ? allowedRange(problem, prev === A ? -1 : prev) : { lo: 0, hi: A - 1 },
  );
  const S = problem.stock ?? 0;
  const finite = problem.stock !== null;
  const width = (S + 1) * P;
  let next = new Float64Array(width);
  let cur = new Float64Array(width);
  const decisions = new Int16Array(T * width);
  // q[a * (S + 1) + s]: value of charging grid price a at stock s today, the future valued with prev = a.
  const q = new Float64Array(A * (S + 1));

  // Exact pruning (finite stock, no max daily change, no price below cost): an action with a higher demand rate
  // but no higher expected margin rate than another is dominated, because E[min(D, s)] / rate falls with the
  // rate and more stock left is never worse when every sale has a non-negative margin.
  const prunable = finite && !constrained && problem.prices.every((price) => price >= problem.unitCost);
  const active = new Uint8Array(A);
  // Above `cap` units, extra stock cannot be sold before the horizon ends (demand tail below 1e-15): V is flat.
  // The spread is the largest daily variance summed (for Poisson, the largest mean: the same sum).
  let remainingPeak = 0;
  let remainingSpread = 0;
  const rates = new Float64Array(A);
  const meanDemand = new Float64Array(A);

  for (let t = T - 1; t >= 0; t--) {
    let peak = 0;
    let spread = 0;
    for (let a = 0; a < A; a++) {
      rates[a] = problem.rate(t, a);
      meanDemand[a] = expectedDemand(problem, rates[a] ?? Number.NaN);
      peak = Math.max(peak, meanDemand[a] ?? Number.NaN);
      spread = Math.max(
        spread,
        problem.distribution === "negative_binomial"
          ? demandVariance(problem, rates[a] ?? 0)
          : (meanDemand[a] ?? Number.NaN),
      );
    }
    remainingPeak += peak;
    remainingSpread += spread;
    // Beyond 9 standard deviations the NB's heavier tail still holds some 1e-6 of the mass: its own window bounds it.
    const cap = Math.min(S, Math.ceil(remainingPeak + 9 * Math.sqrt(remainingSpread) + 12));
    markUndominated(problem, meanDemand, prunable, active);
    for (let a = 0; a < A; a++) {
      if (!active[a]) continue;
      const margin = (problem.prices[a] ?? Number.NaN) - problem.unitCost;
      const rate = rates[a] ?? Number.NaN;
      const nextPrev = constrained ? a : 0;
      if (!finite) {
        q[a] = (meanDemand[a] ?? Number.NaN) * margin + (next[nextPrev] ?? Number.NaN);
        continue;
      }
      const { first, probs } = demandPmf(problem, rate);
      const K = first + probs.length - 1;
      const base = a * (S + 1);
      // cdfBelow = P(D < s) and meanBelow = E[D; D < s], kept incrementally so the inner loop is one product.
      let cdfBelow = 0;
      let meanBelow = 0;
      for (let s = 0; s <= cap; s++) {
        let future = 0;
        const kTop = Math.min(s - 1, K);
        for (let k = first; k <= kTop; k++)
          future += (probs[k - first] ?? Number.NaN) * (next[(s - k) * P + nextPrev] ?? Number.NaN);
        // All demand of s units or more sells out the stock.
        const tail = Math.max(0, 1 - cdfBelow);
        q[base + s] = margin * meanBelow + future + tail * (s * margin + (next[nextPrev] ?? Number.NaN));
        if (s >= first && s <= K) {
          cdfBelow += probs[s - first] ?? Number.NaN;
          meanBelow += s * (probs[s - first] ?? Number.NaN);
        }
      }
      for (let s = cap + 1; s <= S; s++) q[base + s] = q[base + cap] ?? Number.NaN;
    }
    for (let s = 0; s <= S; s++) {
      for (const [prev, { lo, hi }] of ranges.entries()) {
        const idx = s * P + prev;
        let best = Number.NEGATIVE_INFINITY;
        let arg = 0;
        if (problem.shutoff) {
          best = next[idx] ?? Number.NaN;
          arg = SHUTOFF;
        }
        for (let a = lo; a <= hi; a++) {
          if (!active[a]) continue;
          const v = q[a * (S + 1) + s] ?? Number.NaN;
          if (v > best + 1e-12) {
            best = v;
            arg = a;
          }
        }
        cur[idx] = best;
        decisions[t * width + idx] = arg;
      }
    }
    [cur, next] = [next, cur];
  }
  const startPrev = constrained ? A : 0;
  const value = next[S * P + startPrev] ?? Number.NaN;
  const policy: ProductPolicy = (day, stock, prevPriceIndex) => {
    const s = finite ? Math.max(0, Math.min(S, Math.floor(stock))) : 0;
    const prev = constrained ? (prevPriceIndex >= 0 && prevPriceIndex < A ? prevPriceIndex : A) : 0;
    const d = Math.max(0, Math.min(T - 1, day));
    return decisions[d * width + s * P + prev] ?? Number.NaN;
  };
  return { value, policy, tracksPreviousPrice: constrained };
}

/**
 * Sets active[a] = 1 for the actions worth considering today (all of them unless pruning applies), given each
 * action's expected demand today.
 */
function markUndominated(
  problem: PricingProblem,
  demand: Float64Array,
  prunable: boolean,
  active: Uint8Array,
): void {
  const A = demand.length;
  if (!prunable) {
    active.fill(1);
    return;
  }
  const order = Array.from({ length: A }, (_, a) => a).sort(
    (x, y) =>
      (demand[x] ?? Number.NaN) - (demand[y] ?? Number.NaN) ||
      (problem.prices[y] ?? Number.NaN) - (problem.prices[x] ?? Number.NaN),
  );
  active.fill(0);
  let bestMarginRate = Number.NEGATIVE_INFINITY;
  for (const a of order) {
    const marginRate = (demand[a] ?? Number.NaN) * ((problem.prices[a] ?? Number.NaN) - problem.unitCost);
    if (marginRate > bestMarginRate) {
      active[a] = 1;
      bestMarginRate = marginRate;
    }
  }
}
