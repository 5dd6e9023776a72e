import { allowedRange, nearestAllowedIndex } from "../problem/action-range.js";
import { type PricingProblem, type ProductPolicy, SHUTOFF } from "../problem/pricing-problem.js";
import { type DemandPmf, demandPmf, expectedDemand } from "../problem/sales-distribution.js";

export interface PolicyEvaluation {
  /** Exact expected margin over the horizon (currency units), no Monte Carlo. */
  readonly value: number;
  readonly expectedUnits: number;
  readonly expectedRevenue: number;
  /**
   * Reachable (day, state) decisions where the policy returned an illegal action (outside the grid, SHUTOFF when
   * not allowed, or beyond the max daily change). They are evaluated as the nearest legal price.
   */
  readonly violations: number;
}

export interface EvaluateOptions {
  /**
   * Carry the previous price in the state and pass it to the policy (default: only when a max daily change is
   * set). Without it the policy gets -1 ("unknown") and the state is just the stock, which is several times
   * cheaper; pass true for a policy that reads the previous price without a max daily change.
   */
  readonly trackPreviousPrice?: boolean;
  /**
   * States holding less probability than this are dropped (default 0: every reachable state, exact). The mass
   * spreads over every stock level within days through the pmfs' far tails, and most levels then hold less than
   * 1e-15; dropping them moves the value by at most that mass x the horizon x the best margin per day.
   */
  readonly negligibleMass?: number;
}

/**
 * Exact evaluation of any policy by propagating the distribution of (stock[, previous price]) forward day by
 * day: the policy is called once per reachable state. Previous price is passed as -1 on day 0.
 */
export function evaluatePolicy(
  problem: PricingProblem,
  policy: ProductPolicy,
  options: EvaluateOptions = {},
): PolicyEvaluation {
  const T = problem.horizon;
  const A = problem.prices.length;
  const finite = problem.stock !== null;
  const S = problem.stock ?? 0;
  const track = options.trackPreviousPrice ?? problem.maxDailyChange !== null;
  const P = track ? A + 1 : 1;
  const negligible = options.negligibleMass ?? 0;
  const INITIAL = track ? A : 0;
  // Without tracking, every state sits in the single "unknown previous price" slot.
  const slot = (action: number): number => (track ? action : 0);
  let prob = new Float64Array((S + 1) * P);
  let nextProb = new Float64Array((S + 1) * P);
  prob[S * P + INITIAL] = 1;
  let value = 0;
  let units = 0;
  let revenue = 0;
  let violations = 0;
  // By rate, not by day: a season's rates repeat with the weekday, and each pmf is built once for all of them.
  const pmfCache = new Map<number, DemandPmf>();
  /** Moves probability mass into a state of the next day (zeroed at the start of each day). */
  const carry = (state: number, amount: number): void => {
    nextProb[state] = (nextProb[state] ?? 0) + amount;
  };

  for (let t = 0; t < T; t++) {
    nextProb.fill(0);
    for (let s = 0; s <= S; s++) {
      for (let prev = 0; prev < P; prev++) {
        const mass = prob[s * P + prev] ?? Number.NaN;
        if (mass <= negligible) continue;
        const prevIndex = !track || prev === INITIAL ? -1 : prev;
        let action = policy(t, finite ? s : Number.POSITIVE_INFINITY, prevIndex);
        if (!legal(problem, prevIndex, action)) {
          violations++;
          action = repair(problem, prevIndex, action);
        }
        if (action === SHUTOFF || (finite && s === 0)) {
          carry(s * P + (action === SHUTOFF ? prev : slot(action)), mass);
          continue;
        }
        const price = problem.prices[action] ?? Number.NaN;
        const margin = price - problem.unitCost;
        const rate = problem.rate(t, action);
        if (!finite) {
          const sold = expectedDemand(problem, rate);
          value += mass * sold * margin;
          revenue += mass * sold * price;
          units += mass * sold;
          carry(slot(action), mass);
          continue;
        }
        let pmf = pmfCache.get(rate);
        if (!pmf) {
          pmf = demandPmf(problem, rate);
          pmfCache.set(rate, pmf);
        }
        const { first, probs } = pmf;
        let below = 0;
        let sold = 0;
        const kTop = Math.min(s - 1, first + probs.length - 1);
        // The hot loop of every evaluation: `carry` written out, state (s - k) stepping down by P.
        const column = slot(action);
        for (let k = first, state = (s - first) * P + column; k <= kTop; k++, state -= P) {
          const pk = probs[k - first] ?? Number.NaN;
          below += pk;
          sold += pk * k;
          nextProb[state] = (nextProb[state] ?? 0) + mass * pk;
        }
        const tail = Math.max(0, 1 - below);
        sold += tail * s;
        carry(slot(action), mass * tail);
        value += mass * sold * margin;
        revenue += mass * sold * price;
        units += mass * sold;
      }
    }
    [prob, nextProb] = [nextProb, prob];
  }
  return { value, expectedUnits: units, expectedRevenue: revenue, violations };
}

function legal(problem: PricingProblem, prevIndex: number, action: number): boolean {
  if (action === SHUTOFF) return problem.shutoff;
  if (!Number.isInteger(action) || action < 0 || action >= problem.prices.length) return false;
  const { lo, hi } = allowedRange(problem, prevIndex);
  return action >= lo && action <= hi;
}

function repair(problem: PricingProblem, prevIndex: number, action: number): number {
  const A = problem.prices.length;
  const wanted =
    Number.isFinite(action) && action >= 0
      ? (problem.prices[Math.min(A - 1, Math.round(action))] ?? Number.NaN)
      : 0;
  return nearestAllowedIndex(problem, prevIndex, wanted);
}
