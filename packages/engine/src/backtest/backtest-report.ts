import { z } from "zod";

/** How often the backtest refits: before every held-out day (what the nightly run serves) or once before `from`. */
export const RefitSchema = z.enum(["daily", "once"]);
export type Refit = z.infer<typeof RefitSchema>;

const share = z.number().nullable();

/**
 * Accuracy over a set of held-out rows (null where a ratio has no units to divide by):
 * - `wape` = sum |units - expected| / sum units;
 * - `baseline_wape`: the same for the seasonal-naive forecast (the product's same-weekday mean of the 8 weeks
 *   before the fit);
 * - `bias` = sum (expected - units) / sum units (negative: the model under-forecasts);
 * - `coverage_p10_p90`: share of rows with p10 <= units <= p90 (the band promises 0.8).
 */
export const BacktestFiguresSchema = z.object({
  rows: z.number().int().nonnegative(),
  wape: share,
  baseline_wape: share,
  bias: share,
  coverage_p10_p90: share,
});
export type BacktestFigures = z.infer<typeof BacktestFiguresSchema>;

export const BacktestProductSchema = BacktestFiguresSchema.extend({
  product_id: z.string(),
  /** The demand fit's elasticity and standard error at the last refit that predicted the product. */
  elasticity: z.number().nullable(),
  elasticity_se: z.number().nullable(),
  /** NB2 alpha of the fit (variance = mu + alpha mu^2); null while the fit is Poisson. */
  overdispersion: z.number().nullable(),
});
export type BacktestProduct = z.infer<typeof BacktestProductSchema>;

/** One held-out sales row with what the model predicted for it at its actual price and promotion. */
export const BacktestRowSchema = z.object({
  date: z.string(),
  product_id: z.string(),
  price: z.number(),
  promoted: z.number(),
  units_sold: z.number(),
  expected_units: z.number(),
  expected_units_p10: z.number(),
  expected_units_p90: z.number(),
});
export type BacktestRow = z.infer<typeof BacktestRowSchema>;

/** `pricing backtest --json` (DESIGN.md §9). */
export const BacktestReportSchema = z.object({
  company_id: z.string(),
  from: z.string(),
  to: z.string(),
  refit: RefitSchema,
  summary: BacktestFiguresSchema,
  products: z.array(BacktestProductSchema),
  rows: z.array(BacktestRowSchema),
});
export type BacktestReport = z.infer<typeof BacktestReportSchema>;

/** `backtest_failed`: anything unexpected (a bug, not the input). */
export type BacktestErrorCode =
  | "invalid_range"
  | "no_history_before"
  | "no_sales_in_range"
  | "backtest_failed";

/** The one error of a backtest; `code` is stable (the server maps each to its message and exit). */
export class BacktestError extends Error {
  readonly code: BacktestErrorCode;

  constructor(code: BacktestErrorCode, message: string) {
    super(message);
    this.name = "BacktestError";
    this.code = code;
  }
}

interface Scored {
  readonly units: number;
  readonly expected: number;
  readonly baseline: number;
  readonly p10: number;
  readonly p90: number;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The figures of a set of scored rows. */
export function figuresOf(rows: readonly Scored[]): BacktestFigures {
  let units = 0;
  let error = 0;
  let baselineError = 0;
  let signed = 0;
  let covered = 0;
  for (const r of rows) {
    units += r.units;
    error += Math.abs(r.units - r.expected);
    baselineError += Math.abs(r.units - r.baseline);
    signed += r.expected - r.units;
    if (r.units >= r.p10 && r.units <= r.p90) covered += 1;
  }
  const perUnit = (x: number) => (units > 0 ? round4(x / units) : null);
  return {
    rows: rows.length,
    wape: perUnit(error),
    baseline_wape: perUnit(baselineError),
    bias: perUnit(signed),
    coverage_p10_p90: rows.length > 0 ? round4(covered / rows.length) : null,
  };
}
