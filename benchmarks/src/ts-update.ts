/**
 * TS-update with an inventory constraint (Ferreira, Simchi-Levi & Wang 2018, algorithm 2): a conjugate posterior
 * per grid price (Beta for Bernoulli demand, Gamma for Poisson), each period one draw per price, then the LP
 * max sum_i x_i (p_i - c) d_i subject to sum_i x_i d_i <= stock left / periods left and sum_i x_i <= 1, and the
 * price drawn with probabilities x (no sale with what is left, where the market allows it).
 */
import { sampleGamma } from "@pricing/engine";

type Uniform = () => number;

function sampleBeta(rng: Uniform, a: number, b: number): number {
  const x = sampleGamma(rng, a, 1);
  return x / (x + sampleGamma(rng, b, 1));
}

export interface TsUpdateState {
  readonly prices: readonly number[];
  readonly distribution: "poisson" | "bernoulli";
  /** Per price: units sold and periods offered. */
  readonly units: number[];
  readonly periods: number[];
}

export function tsUpdateState(
  prices: readonly number[],
  distribution: "poisson" | "bernoulli",
): TsUpdateState {
  return { prices, distribution, units: prices.map(() => 0), periods: prices.map(() => 0) };
}

export function observe(state: TsUpdateState, index: number, units: number): void {
  state.units[index] = (state.units[index] ?? 0) + units;
  state.periods[index] = (state.periods[index] ?? 0) + 1;
}

/** The LP over price probabilities: x per price (their sum <= 1). Vertices have at most two prices. */
export function solvePriceLp(
  margins: readonly number[],
  demand: readonly number[],
  capacity: number,
): number[] {
  const n = margins.length;
  let best = new Array<number>(n).fill(0);
  let bestValue = 0;
  const consider = (x: number[]) => {
    const sales = x.reduce((a, xi, i) => a + xi * (demand[i] ?? 0), 0);
    if (sales > capacity + 1e-9 || x.some((xi) => xi < -1e-12) || x.reduce((a, b) => a + b, 0) > 1 + 1e-9)
      return;
    const value = x.reduce((a, xi, i) => a + xi * (margins[i] ?? 0) * (demand[i] ?? 0), 0);
    if (value > bestValue + 1e-12) {
      bestValue = value;
      best = x;
    }
  };
  for (let i = 0; i < n; i++) {
    const d = demand[i] ?? 0;
    const x = new Array<number>(n).fill(0);
    x[i] = d > 0 ? Math.min(1, capacity / d) : 1;
    consider(x);
    for (let j = i + 1; j < n; j++) {
      const e = demand[j] ?? 0;
      if (Math.abs(d - e) < 1e-12) continue;
      // Both constraints tight: x_i + x_j = 1 and x_i d + x_j e = capacity.
      const xi = (capacity - e) / (d - e);
      const y = new Array<number>(n).fill(0);
      y[i] = xi;
      y[j] = 1 - xi;
      consider(y);
    }
  }
  return best;
}

/**
 * This period's price index, or -1 for no sale (only when `shutoff`; otherwise the unused probability goes to the
 * highest price, the closest a market without shutoff comes to not selling).
 */
export function tsUpdateChoice(
  state: TsUpdateState,
  rng: Uniform,
  unitCost: number,
  stockLeft: number,
  periodsLeft: number,
  shutoff: boolean,
): number {
  const draws = state.prices.map((_, i) => {
    const units = state.units[i] ?? 0;
    const periods = state.periods[i] ?? 0;
    return state.distribution === "bernoulli"
      ? sampleBeta(rng, 1 + units, 1 + periods - units)
      : sampleGamma(rng, 1 + units, 1 + periods);
  });
  const capacity = Number.isFinite(stockLeft)
    ? stockLeft / Math.max(1, periodsLeft)
    : Number.POSITIVE_INFINITY;
  const x = solvePriceLp(
    state.prices.map((p) => p - unitCost),
    draws,
    capacity,
  );
  let u = rng();
  for (let i = 0; i < x.length; i++) {
    u -= x[i] ?? 0;
    if (u < 0) return i;
  }
  return shutoff ? -1 : state.prices.length - 1;
}
