import { packedMap } from "../base/packed-map.js";
import { sampleNormal, type Uniform } from "../random/random-draws.js";
import { parameterSd } from "./posterior-draws.js";

/** A grid price's sales as the learner weighs them. */
export interface PriceSales {
  /** Days sold at the price (stock-outs left out) weighted by the fitted weekday volume, and the units sold. */
  exposure: number;
  units: number;
}

/** The demand line (log rate against log price) fitted to the prices sold nearest one end of the prices sold. */
export interface EdgeLine {
  /** Centre of the fit (log price), the fitted log rate there, the elasticity and its standard error. */
  readonly center: number;
  readonly logRate: number;
  readonly elasticity: number;
  readonly stdError: number;
}

export interface EdgeLines {
  readonly below?: EdgeLine;
  readonly above?: EdgeLine;
}

/** Standard errors by which an end's own slope must differ from the fitted elasticity before it replaces it. */
const EDGE_Z = 2;

/**
 * The local demand lines at both ends of the prices sold: a weighted least-squares fit of log rate on log price
 * over the prices in the lower (upper) half of the sold range's log span, at least the two furthest out, weights
 * the units sold (the log rate's inverse variance). Where an end's slope differs from the fitted elasticity by
 * more than `EDGE_Z` standard errors of both, the learner prices that end along its line, not the one fitted
 * curve: where the true demand bends (buyers who accept cuts mildly but punish rises, a market that saturates) the
 * fitted curve's average slope keeps promising more from every further step, while the half of the sales next to
 * the step says what the next one brings, and the line moves with the walk as its own prices join the fit. An
 * end whose slope agrees with the curve within the noise keeps the curve: a +-10 % history pins a half's slope only
 * to about +-1, and taking every such line measured 9 points lower on `loose-stock` in `bench:closed-loop`.
 * Undefined on a side with under two prices sold.
 */
export function edgeLines(
  prices: readonly number[],
  sales: readonly PriceSales[],
  fitted: { readonly elasticity: number; readonly stdError: number },
): EdgeLines {
  const sold = prices.flatMap((p, i) => {
    const s = sales[i];
    return s !== undefined && s.exposure > 0 ? [{ x: Math.log(p), s }] : [];
  });
  if (sold.length < 2) return {};
  const first = sold[0];
  const last = sold.at(-1);
  if (first === undefined || last === undefined) return {};
  const middle = (first.x + last.x) / 2;
  const lower = sold.filter((p, i) => i < 2 || p.x <= middle + 1e-12);
  const upper = sold.filter((p, i) => i >= sold.length - 2 || p.x >= middle - 1e-12);
  const contradicts = (line: EdgeLine | undefined) =>
    line !== undefined &&
    Math.abs(line.elasticity - fitted.elasticity) > EDGE_Z * Math.hypot(line.stdError, fitted.stdError);
  const fittedBelow = fitLine(lower);
  const fittedAbove = fitLine(upper);
  const below = contradicts(fittedBelow) ? fittedBelow : undefined;
  const above = contradicts(fittedAbove) ? fittedAbove : undefined;
  return { ...(below === undefined ? {} : { below }), ...(above === undefined ? {} : { above }) };
}

function fitLine(points: readonly { x: number; s: PriceSales }[]): EdgeLine | undefined {
  // Half a unit on a price that sold nothing, so its log rate is finite and weighs little.
  const rows = packedMap(points, ({ x, s }) => ({ x, units: Math.max(s.units, 0.5), exposure: s.exposure }));
  const weight = rows.reduce((a, r) => a + r.units, 0);
  const center = rows.reduce((a, r) => a + r.units * r.x, 0) / weight;
  const logRate = rows.reduce((a, r) => a + r.units * Math.log(r.units / r.exposure), 0) / weight;
  let sxx = 0;
  let sxy = 0;
  for (const r of rows) {
    sxx += r.units * (r.x - center) ** 2;
    sxy += r.units * (r.x - center) * (Math.log(r.units / r.exposure) - logRate);
  }
  if (!(sxx > 0)) return undefined;
  return {
    center,
    logRate,
    elasticity: Math.max(0, -sxy / sxx),
    stdError: Math.sqrt(1 / sxx),
  };
}

/** The rate the edge line gives at `price`, with `elasticity` in place of the fitted one (a posterior draw). */
export function edgeRate(line: EdgeLine, price: number, elasticity = line.elasticity): number {
  return Math.exp(line.logRate - elasticity * (Math.log(price) - line.center));
}

/** One draw of an edge line's elasticity (normal, not below 0). */
export function drawEdgeElasticity(rng: Uniform, line: EdgeLine): number {
  return Math.max(0, line.elasticity + parameterSd(line.stdError) * sampleNormal(rng));
}
