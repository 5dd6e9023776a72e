import { z } from "zod";
import { isKnownCurrency } from "../base/currency.js";
import { PRICE_ENDING } from "../base/price-format.js";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD");
const positive = z.number().positive();
const weekVector = z.array(z.number().nonnegative()).length(7);
const range = z.tuple([z.number(), z.number()]).refine(([lo, hi]) => lo <= hi, "range must be [low, high]");

/** A price grid: evenly spaced `{min, max, step}` (inclusive) or an explicit ascending list, in currency units. */
export const PriceGridSchema = z.union([
  z.strictObject({ min: positive, max: positive, step: positive }),
  z.array(positive).min(1),
]);
export type PriceGrid = z.infer<typeof PriceGridSchema>;

/**
 * True demand of one product, units per day:
 * - exponential: `base_rate * w * exp(-e * (p / p_ref - 1))`
 * - constant_elasticity: `base_rate * w * (p / p_ref) ^ -e`
 * - linear: `base_rate * w * max(0, 1 - e * (p / p_ref - 1))`
 * - table: `w * table[i]` at grid price i (linear in between)
 * where `w` = weekday volume (Monday first) times the optional per-day multiplier (`history_multipliers` on history
 * days, `day_multipliers` on the horizon: a level path across both) times `promotion_lift` ^ the day's promoted
 * share, and `e` is one elasticity or one per weekday. Under `distribution: "negative_binomial"` a day's demand has
 * variance rate + `overdispersion` x rate^2.
 */
export const DemandSpecSchema = z.strictObject({
  family: z.enum(["exponential", "constant_elasticity", "linear", "table"]),
  base_rate: z.number().nonnegative().default(1),
  elasticity: z.union([z.number().nonnegative(), z.array(z.number().nonnegative()).length(7)]).default(2),
  weekday: weekVector.default([1, 1, 1, 1, 1, 1, 1]),
  /** One volume multiplier per horizon day (season, promotions); history days use `history_multipliers`. */
  day_multipliers: z.array(z.number().nonnegative()).optional(),
  /** One volume multiplier per history day, oldest first (history.days of them); default 1. */
  history_multipliers: z.array(z.number().nonnegative()).optional(),
  /** NB2 alpha >= 0 of a "negative_binomial" market (variance rate + alpha rate^2); 0 is Poisson. */
  overdispersion: z.number().nonnegative().default(0),
  /** Multiplier a promotion applies to the day's rate (a share s of the day promoted: lift ^ s). */
  promotion_lift: z.number().positive().default(1),
  /** Rate per grid price for family "table" (same length as the grid). */
  table: z.array(z.number().nonnegative()).optional(),
});
export type DemandSpec = z.infer<typeof DemandSpecSchema>;

export const ProductSpecSchema = z.strictObject({
  product_id: z.string().min(1),
  /** The product's base price; demand is parameterised around it and history prices vary around it. */
  reference_price: positive,
  unit_cost: z.number().nonnegative().default(0),
  /** Default: the catalogue grid (`catalogGrid`) between the guardrails, 0.5x and 2x the reference price. */
  grid: PriceGridSchema.optional(),
  /** Guardrails; default the grid's ends. */
  min_price: positive.optional(),
  max_price: positive.optional(),
  /** Units on hand at the start of the horizon; null = unlimited. */
  stock: z.number().int().nonnegative().nullable().optional(),
  /** Alternative to `stock`: this fraction of the expected horizon demand at the reference price. */
  stock_ratio: positive.optional(),
  /** Price in force the day before the horizon (for max_daily_change); default the reference price. */
  initial_price: positive.optional(),
  demand: DemandSpecSchema,
});
export type ProductSpec = z.infer<typeof ProductSpecSchema>;

/** N products drawn uniformly from ranges (seeded by the scenario seed). */
export const CompanySpecSchema = z.strictObject({
  count: z.number().int().min(1).max(10_000),
  id_prefix: z.string().default("p"),
  family: z.enum(["exponential", "constant_elasticity", "linear"]).default("constant_elasticity"),
  reference_price: range.default([5, 200]),
  base_rate: range.default([1, 20]),
  elasticity: range.default([1.3, 3.5]),
  /** Unit cost as a fraction of the reference price. */
  unit_cost_fraction: range.default([0.2, 0.5]),
  /** Stock as a fraction of expected horizon demand at the reference price; null = unlimited. */
  stock_ratio: range.nullable().default(null),
  /** Weekday volume profile shared by the company, each product jittered by up to this fraction. */
  weekday: weekVector.default([0.9, 0.9, 0.95, 1, 1.1, 1.25, 0.9]),
  weekday_jitter: z.number().min(0).max(0.5).default(0.1),
  /** NB2 alpha range of a "negative_binomial" market ([0, 0]: Poisson, nothing drawn). */
  overdispersion: range.default([0, 0]),
  /** Price grid relative to each product's reference price; default the catalogue grid (`catalogGrid`). */
  grid_relative: z.strictObject({ min: positive, max: positive, step: positive }).optional(),
});
export type CompanySpec = z.infer<typeof CompanySpecSchema>;

export const HistorySpecSchema = z.strictObject({
  /** Days of history, ending the day before `start_date`. */
  days: z.number().int().min(0).max(5000).default(365),
  /** Each new price is reference * (1 + U(-v, v)), printable in the scenario's currency (ignored when `price_levels` is set). */
  price_variation: z.number().min(0).max(0.9).default(0.1),
  /** Optional explicit price levels as multiples of the reference price, drawn uniformly. */
  price_levels: z.array(positive).min(1).optional(),
  /**
   * One price per history day as a multiple of the reference price, oldest first (`days` of them): a real price
   * path; overrides the drawn levels.
   */
  price_path: z.array(positive).optional(),
  /** Share of history days promoted (each day drawn on its own, `promoted` 1 in its row); 0: none. */
  promoted_share: z.number().min(0).max(1).default(0),
  /** The price changes every this many days. */
  change_every_days: z.number().int().min(1).default(7),
  /** Seed of the history draws; default the scenario seed. */
  seed: z.number().int().optional(),
});
export type HistorySpec = z.infer<typeof HistorySpecSchema>;

/** A market with known true demand: the yardstick of every policy benchmark. */
export const ScenarioSchema = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    seed: z.number().int().default(1),
    /** First selling day of the horizon (day 0). */
    start_date: isoDate,
    horizon: z.number().int().min(1).max(3650),
    /** "negative_binomial" takes each product's `demand.overdispersion`. */
    distribution: z.enum(["poisson", "negative_binomial", "bernoulli"]).default("poisson"),
    /** Allow a no-sale action. */
    shutoff: z.boolean().default(false),
    /** ISO 4217 code of every price (the grids and the history are on its minor unit). */
    currency: z.string().refine(isKnownCurrency, { message: "unknown currency code" }).default("USD"),
    /** Price endings of every product (DESIGN §11, e.g. [".99"]): the grids and the history hold only printable prices. */
    price_endings: z.array(z.string().regex(PRICE_ENDING)).default([]),
    /** Largest allowed |p_t / p_{t-1} - 1| on the horizon; null = none. */
    max_daily_change: z.number().positive().max(1).nullable().default(null),
    products: z.array(ProductSpecSchema).optional(),
    company: CompanySpecSchema.optional(),
    history: HistorySpecSchema.default({
      days: 365,
      price_variation: 0.1,
      change_every_days: 7,
      promoted_share: 0,
    }),
  })
  .refine((s) => (s.products?.length ?? 0) > 0 || s.company !== undefined, {
    message: "a scenario needs `products` or `company`",
  });
export type Scenario = z.infer<typeof ScenarioSchema>;
export type ScenarioInput = z.input<typeof ScenarioSchema>;
