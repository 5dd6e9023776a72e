import { type DemandPmf, expectedCapped } from "../problem/sales-distribution.js";
import { FLUID_VALUE_FEATURE, type ProductModel, STOCK_FEATURE_COLUMNS } from "./product-model.js";
import type { QNetwork } from "./q-network.js";

/** Largest stock grid on which the next day's value is read off the network (interpolated in between). */
const VALUE_GRID = 256;

/** Next-day value (currency) by stock level, one table per previous action (one only without a max change). */
type NextValues = Float64Array[];

/**
 * One product-day's sampled states as replay rows: per state its stock-dependent inputs (STOCK_FEATURE_COLUMNS),
 * head inputs and normalized Bellman targets, and its value (currency); the loss weights, one row for all.
 */
export interface ProductDayRows {
  readonly count: number;
  readonly stockX: Float32Array;
  readonly margins: Float32Array;
  readonly rates: Float32Array;
  readonly y: Float32Array;
  readonly w: Float32Array;
  readonly values: Float64Array;
}

/**
 * The replay rows of day `day` for each of `products` (a model and the stock levels sampled for it that day),
 * under `net`'s value of the next day: the network-dependent half of a backward-induction day. Each product's rows
 * depend on its own model and stocks only, whichever products share the call.
 */
export function dayTargets(
  net: QNetwork,
  products: readonly { readonly model: ProductModel; readonly stocks: readonly number[] }[],
  day: number,
): ProductDayRows[] {
  const a = net.shape.actions;
  const out = 1 + a;
  const sc = STOCK_FEATURE_COLUMNS.length;
  const nextValues = nextDayValues(
    net,
    products.map((p) => p.model),
    day + 1,
  );
  return products.map(({ model: m, stocks }) => {
    const n = stocks.length;
    const rows: ProductDayRows = {
      count: n,
      stockX: new Float32Array(n * sc),
      margins: new Float32Array(n * a),
      rates: new Float32Array(n * a),
      y: new Float32Array(n * out),
      w: new Float32Array(out),
      values: new Float64Array(n),
    };
    const pmfs: DemandPmf[] = [];
    for (let k = 0; k < a; k++) {
      const previous = pmfs[k - 1];
      // Actions on the same grid price share one pmf (and `actionValues` then one value).
      pmfs.push(
        previous !== undefined && m.actions.priceIndex[k] === m.actions.priceIndex[k - 1]
          ? previous
          : m.demandPmfAt(m.rateOf(day, k)),
      );
    }
    const next = nextValues.get(m) ?? null;
    // Episodes share stock levels (all of them start full) and each target also reads the level below.
    const memo: ActionValueMemo = new Map();
    stocks.forEach((stock, j) => {
      m.writeStockFeatures(day, stock, rows.stockX, j * sc);
      m.writeHeadInputs(day, stock, rows.margins, rows.rates, j * a);
      rows.values[j] = writeTargets(m, day, stock, pmfs, next, rows.y, rows.w, j * out, -j * out, memo);
    });
    return rows;
  });
}

/**
 * Next-day value (currency, up to a constant per product) of every integer stock level, per previous action when
 * a max daily change makes it depend on that. The network's marginal stock value is read at every level up to
 * VALUE_GRID (on an even grid above that, integrated by the trapezoid rule) in one batch and summed from 0:
 *   V(s, prev) = sum_{j<=s} mu(j) - advScale * (max over all actions of u - max over actions allowed after prev)
 * Stock 0 is worth 0, the day after the horizon nothing at all.
 */
function nextDayValues(
  net: QNetwork,
  models: readonly ProductModel[],
  day: number,
): Map<ProductModel, NextValues> {
  const result = new Map<ProductModel, NextValues>();
  const grids = new Map<ProductModel, number[]>();
  let rows = 0;
  for (const m of models) {
    if (day >= m.setup.horizon) continue;
    const grid = valueGrid(m.setup.stock);
    grids.set(m, grid);
    rows += grid.length;
  }
  if (rows === 0) return result;
  const f = net.shape.inputs;
  const a = net.shape.actions;
  // The day's inputs go through the first layer once per product; each stock level adds its few stock columns
  // (as the served policy does): the full input is 138 columns wide, the stock part 6.
  const dayInputs = new Float32Array(grids.size * f);
  let p = 0;
  for (const m of grids.keys()) dayInputs.set(m.dayFeatures.subarray(day * f, (day + 1) * f), f * p++);
  const embedded = net.embedDays(dayInputs, grids.size);
  const hidden0 = embedded.length / grids.size;
  const sc = STOCK_FEATURE_COLUMNS.length;
  const fluidAt = STOCK_FEATURE_COLUMNS.indexOf(FLUID_VALUE_FEATURE);
  const stockX = new Float32Array(rows * sc);
  const embedding = new Float32Array(rows * hidden0);
  const fluid = new Float32Array(rows);
  const margins = new Float32Array(rows * a);
  const rates = new Float32Array(rows * a);
  let r = 0;
  p = 0;
  for (const [m, grid] of grids) {
    const own = embedded.subarray(p * hidden0, (p + 1) * hidden0);
    p++;
    // Without a max daily change the tables read the marginal value alone, which the head inputs do not enter.
    const actions = m.allowedAfter !== null;
    for (const s of grid) {
      m.writeStockFeatures(day, s, stockX, r * sc);
      embedding.set(own, r * hidden0);
      fluid[r] = stockX[r * sc + fluidAt] as number;
      if (actions) m.writeHeadInputs(day, s, margins, rates, r * a);
      r++;
    }
  }
  const raw = net.predictRaw(stockX, embedding, rows, STOCK_FEATURE_COLUMNS);
  r = 0;
  for (const [m, grid] of grids) {
    const n = grid.length;
    const at = (k: number) => [r * k, (r + n) * k] as const;
    const actions = m.allowedAfter !== null;
    const y = net.finishHead(
      raw.subarray(...at(a + 2)),
      n,
      fluid.subarray(...at(1)),
      actions ? margins.subarray(...at(a)) : null,
      actions ? rates.subarray(...at(a)) : null,
    );
    result.set(m, valueTables(m, day, grid, y, a));
    r += n;
  }
  return result;
}

/** Stock levels the network's marginal value is read at: every level up to VALUE_GRID, an even grid above. */
function valueGrid(stock: number | null): number[] {
  if (stock === null) return [Number.POSITIVE_INFINITY];
  if (stock <= VALUE_GRID) return Array.from({ length: stock }, (_, s) => s + 1);
  return [
    ...new Set(Array.from({ length: VALUE_GRID }, (_, g) => Math.round(((g + 1) * stock) / VALUE_GRID))),
  ];
}

/** One product's next-day value tables from the network's outputs `y` [grid.length * (1 + a)] on its grid. */
function valueTables(
  m: ProductModel,
  day: number,
  grid: readonly number[],
  y: Float32Array,
  a: number,
): NextValues {
  const allowedAfter = m.allowedAfter;
  const prevs = allowedAfter === null ? 1 : a;
  const stock = m.setup.stock;
  const finite = stock !== null;
  const advScale = m.advantageScale(day);
  const ref = m.referencePrice;
  // Free value (best action) at each grid level, then the penalty of each previous action's restricted set.
  const free = new Float64Array(grid.length);
  const penalty = Array.from({ length: prevs }, () => new Float64Array(grid.length));
  let cumulative = 0;
  let prevLevel = 0;
  let prevMu = 0;
  grid.forEach((s, g) => {
    const base = g * (a + 1);
    const mu = (y[base] ?? Number.NaN) * ref;
    if (finite) {
      const width = s - prevLevel;
      cumulative += width === 1 || g === 0 ? width * mu : (width * (mu + prevMu)) / 2;
      prevLevel = s;
      prevMu = mu;
    }
    free[g] = cumulative;
    if (allowedAfter === null) return;
    let bestAll = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < a; k++) {
      const value = y[base + 1 + k] ?? Number.NaN;
      if (m.actions.valid[k] && value > bestAll) bestAll = value;
    }
    penalty.forEach((pen, p) => {
      let best = Number.NEGATIVE_INFINITY;
      for (let k = 0; k < a; k++) {
        const value = y[base + 1 + k] ?? Number.NaN;
        if (allowedAfter[p * a + k] && value > best) best = value;
      }
      pen[g] = best === Number.NEGATIVE_INFINITY ? 0 : advScale * (bestAll - best);
    });
  });
  return penalty.map((pen) => {
    const table = new Float64Array(finite ? stock + 1 : 1);
    if (!finite) {
      table[0] = -(pen[0] ?? Number.NaN);
      return table;
    }
    // Level 0 stays worth 0 whatever the previous price: nothing is left to sell.
    let lo = 0;
    let loValue = 0;
    grid.forEach((hi, g) => {
      const hiValue = (free[g] ?? Number.NaN) - (pen[g] ?? Number.NaN);
      for (let s = lo + 1; s <= hi; s++) table[s] = loValue + ((hiValue - loValue) * (s - lo)) / (hi - lo);
      lo = hi;
      loValue = hiValue;
    });
    return table;
  });
}

/** One product-day's action values by stock level: each level's Q of every action and the best of them. */
type ActionValueMemo = Map<number, { readonly q: Float64Array; readonly best: number }>;

/** `actionValues` of a stock level, computed once per product-day. */
function memoActionValues(
  m: ProductModel,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: NextValues | null,
  memo: ActionValueMemo,
): { readonly q: Float64Array; readonly best: number } {
  let found = memo.get(stock);
  if (found === undefined) {
    const q = new Float64Array(m.actionCount);
    found = { q, best: actionValues(m, stock, pmfs, next, q) };
    memo.set(stock, found);
  }
  return found;
}

/** Q (currency) of every action in state (day, stock) into `q`; NaN for invalid actions. Returns the best. */
function actionValues(
  m: ProductModel,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: NextValues | null,
  q: Float64Array,
): number {
  const finite = stock !== Number.POSITIVE_INFINITY;
  let best = Number.NEGATIVE_INFINITY;
  // Without a max daily change the next day's table is one for all actions: an action charging the previous
  // action's grid price has its value.
  const shared = next === null || m.allowedAfter === null;
  for (let k = 0; k < m.actionCount; k++) {
    const pmf = pmfs[k];
    if (!m.actions.valid[k] || pmf === undefined) {
      q[k] = Number.NaN;
      continue;
    }
    if (
      shared &&
      k > 0 &&
      m.actions.valid[k - 1] &&
      m.actions.priceIndex[k] === m.actions.priceIndex[k - 1]
    ) {
      q[k] = q[k - 1] as number;
      continue;
    }
    const price = m.priceOf(k);
    const margin = price === null ? 0 : price - m.setup.unitCost;
    const table = next === null ? null : (next[m.allowedAfter === null ? 0 : k] ?? null);
    let value = 0;
    if (!finite) {
      const mean = expectedCapped(pmf, stock);
      value = (price === null ? 0 : margin * mean) + (table === null ? 0 : (table[0] ?? Number.NaN));
    } else if (price === null) {
      value = table === null ? 0 : (table[stock] ?? Number.NaN);
    } else {
      let below = 0;
      const { first, probs } = pmf;
      // The hot loop of the targets: bounds hoisted, the table's presence tested once.
      const end = Math.min(probs.length, stock - first);
      if (table === null) {
        for (let j = 0; j < end; j++) {
          const p = probs[j] as number;
          value += p * (margin * (first + j) + 0);
          below += p;
        }
      } else {
        for (let j = 0; j < end; j++) {
          const p = probs[j] as number;
          const d = first + j;
          value += p * (margin * d + (table[stock - d] as number));
          below += p;
        }
      }
      value += Math.max(0, 1 - below) * margin * stock;
    }
    q[k] = value;
    if (value > best) best = value;
  }
  return best;
}

/**
 * Writes the normalized Bellman targets of state (day, stock) at `offset` of `y` and their loss weights at
 * `offset + wShift` of `w` (1 + A values each) and returns the state's value (currency, best valid action).
 * Q(a) = E[(p_a - c) min(D, s) + V_{day+1}(s - min(D, s), a)] with D the day's demand at price p_a. Targets: the
 * marginal value V(s) - V(s - 1) over the reference price, and each action's Q minus the mean over valid actions,
 * over the day's advantage scale.
 */
function writeTargets(
  m: ProductModel,
  day: number,
  stock: number,
  pmfs: readonly DemandPmf[],
  next: NextValues | null,
  y: Float32Array,
  w: Float32Array,
  offset: number,
  wShift: number,
  memo: ActionValueMemo,
): number {
  const a = m.actionCount;
  const { q, best } = memoActionValues(m, stock, pmfs, next, memo);
  const finite = stock !== Number.POSITIVE_INFINITY;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < a; k++) {
    if (m.actions.valid[k]) {
      sum += q[k] ?? Number.NaN;
      count++;
    }
  }
  const mean = count > 0 ? sum / count : 0;
  const aScale = m.advantageScale(day);
  if (finite) {
    const below = stock > 1 ? memoActionValues(m, stock - 1, pmfs, next, memo).best : 0;
    y[offset] = (best - below) / m.referencePrice;
    w[offset + wShift] = 1;
  } else {
    y[offset] = 0;
    w[offset + wShift] = 0;
  }
  for (let k = 0; k < a; k++) {
    const valid = m.actions.valid[k] === 1;
    y[offset + 1 + k] = valid ? ((q[k] ?? Number.NaN) - mean) / aScale : 0;
    w[offset + wShift + 1 + k] = valid ? 1 / count : 0;
  }
  return best;
}
