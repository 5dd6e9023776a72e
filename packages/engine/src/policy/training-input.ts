import { z } from "zod";
import { at } from "../base/checked-index.js";
import { insideGuardrails } from "../base/guardrails.js";
import type { PricingProblem } from "../problem/pricing-problem.js";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected YYYY-MM-DD");

/** Everything about one product's selling problem except demand, as plain data (mirrors `ProblemSetup`). */
export const ProductSetupSchema = z.strictObject({
  productId: z.string().min(1),
  startDate: isoDate,
  horizon: z.number().int().min(1).max(3650),
  prices: z.array(z.number().positive()).min(1),
  minPrice: z.number().positive(),
  maxPrice: z.number().positive(),
  shutoff: z.boolean(),
  unitCost: z.number().nonnegative(),
  stock: z.number().int().nonnegative().nullable(),
  maxDailyChange: z.number().positive().nullable(),
  initialPrice: z.number().positive().nullable(),
  distribution: z.enum(["poisson", "negative_binomial", "bernoulli"]),
  /** alpha of "negative_binomial" (variance rate + alpha rate^2); absent in artifacts written before it: 0. */
  overdispersion: z.number().nonnegative().default(0),
});
export type ProductSetup = z.infer<typeof ProductSetupSchema>;

export const RuleParamsSchema = z.strictObject({
  basePrice: z.number().positive(),
  weekdayIndex: z.array(z.number()).length(7),
  dailyUnits: z.number().nullable(),
  weekdayExponent: z.number().optional(),
  pacingExponent: z.number().optional(),
  maxPacing: z.number().optional(),
});

/**
 * The fit's own uncertainty about a constant-elasticity demand model (rate ~ (price / referencePrice) ^ -elasticity):
 * the estimate and standard errors the `rates` table was built from. Mirrors `FittedProduct`.
 */
export const DemandUncertaintySchema = z.strictObject({
  referencePrice: z.number().positive(),
  elasticity: z.number().nonnegative(),
  elasticitySe: z.number().nonnegative(),
  /** Standard error of log(base rate). */
  logRateSe: z.number().nonnegative(),
});
export type DemandUncertainty = z.infer<typeof DemandUncertaintySchema>;

/**
 * One product of the simulator the policy learns in: its setup and the demand rate (units per day) of the fitted
 * (or, for diagnostics, true) model at every horizon day and grid price, row-major by day.
 */
export const ProductTrainingDataSchema = z.strictObject({
  setup: ProductSetupSchema,
  /** Base price the action multipliers are relative to; default sqrt(minPrice * maxPrice). */
  referencePrice: z.number().positive().optional(),
  rates: z.array(z.number().nonnegative()),
  /**
   * The rule fallback's parameters: the artifact's metrics compare the policy with the rule, and a product whose
   * policy does not beat the rule with high confidence is priced by the rule (see `safe-improvement.ts`).
   */
  ruleParams: RuleParamsSchema.optional(),
  /** How uncertain the fitted demand behind `rates` is; without it the safety check uses the fitted model alone. */
  demandUncertainty: DemandUncertaintySchema.optional(),
});
export type ProductTrainingData = z.infer<typeof ProductTrainingDataSchema>;

export const TrainingConfigSchema = z.strictObject({
  seed: z.number().int().default(1),
  /** Sampled stock levels per product and day (finite stock); the "episodes" budget of fitted Q-iteration. */
  statesPerDay: z.number().int().min(4).max(4096).default(48),
  /**
   * Gradient steps after each backward-induction day. With `finalSteps` sized on bench:policy's company-100: 120
   * and 4000 steps scored 99.37 % of the optimum, 40 and 1500 99.19 % (83 of 100 products kept RL) in a third
   * of the steps, 30 and 600 99.21 % (83 kept; on bench:train's 60-day company the raw policy's margin 0.03 %
   * below 40 and 1500's) in 38 % fewer steps on a 60-day season. Fewer scored 99.10-99.18 % (20 and 600, 15 and
   * 600, 20 and 1000) against a floor of 99.07 %: single runs move by about 0.1 pp with the step counts. After the
   * same day's changes to the demand fit: 30 and 600 99.23 %, 40 and 1500 99.25 %.
   */
  stepsPerDay: z.number().int().min(1).max(10_000).default(30),
  /** Gradient steps over all days once the backward pass is done. */
  finalSteps: z.number().int().min(0).max(1_000_000).default(600),
  batchSize: z.number().int().min(8).max(65_536).default(256),
  learningRate: z.number().positive().default(1e-3),
  /** Hidden layer widths; when a training input leaves them out, `defaultHiddenLayers` of its product count. */
  hidden: z.array(z.number().int().min(4).max(1024)).min(1).max(4).default([64, 64]),
  /**
   * Wall-clock budget; past it the backward pass stops where it is (the earlier days are not learned) and the final
   * phase is skipped.
   */
  maxSeconds: z.number().positive().nullable().default(null),
});
export type TrainingConfig = z.infer<typeof TrainingConfigSchema>;
export type TrainingConfigInput = z.input<typeof TrainingConfigSchema>;

/** Products from which a training's network defaults to two hidden layers of 32 instead of 64. */
const SMALL_NETWORK_FROM_PRODUCTS = 20;

/**
 * The hidden layers of a company's network when its training input does not set them. [32, 32] has under half of
 * [64, 64]'s matrix products per gradient step (the first layer reads all 138 inputs). On bench:policy's
 * company-100 over three training seeds it scored 99.252 / 99.067 / 99.257 % of the optimum against [64, 64]'s
 * 99.226 / 99.058 / 99.159 % (seed 1 the default; on seed 1 [48, 48] 99.17, [32, 64] 99.20, [64, 32] 99.22,
 * [48, 32] 99.03, [64, 24] 99.14 %), but lost on the one-product scenarios (bernoulli-shutoff 98.49 % against
 * 99.17 on average over the same seeds, seasonal-weekday-elasticity 99.37 against 99.51), which train in seconds
 * anyway. The switch sits with the second training thread's (20 products), unmeasured in between.
 */
export function defaultHiddenLayers(products: number): number[] {
  return products >= SMALL_NETWORK_FROM_PRODUCTS ? [32, 32] : [64, 64];
}

/** `raw` with `config.hidden` set by its product count when left out (anything malformed is left to the schema). */
function withDefaultHiddenLayers(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null) return raw;
  const { products, config } = raw as { products?: unknown; config?: unknown };
  if (!Array.isArray(products)) return raw;
  if (config !== undefined && (typeof config !== "object" || config === null)) return raw;
  if (config !== undefined && (config as { hidden?: unknown }).hidden !== undefined) return raw;
  return { ...raw, config: { ...config, hidden: defaultHiddenLayers(products.length) } };
}

const TrainingInputObjectSchema = z.strictObject({
  companyId: z.string().min(1),
  products: z.array(ProductTrainingDataSchema).min(1),
  /** The fitted demand-model parameters, kept verbatim in the artifact's manifest (plain JSON). */
  demandModel: z.json().optional(),
  config: TrainingConfigSchema.default(TrainingConfigSchema.parse({})),
});

/**
 * The whole, serializable input of a training run (what crosses into the worker thread); the network's hidden
 * layers, when not given, by the company's size (`defaultHiddenLayers`).
 */
export const TrainingInputSchema = z.preprocess(withDefaultHiddenLayers, TrainingInputObjectSchema);
export type TrainingInput = z.infer<typeof TrainingInputObjectSchema>;
export type TrainingInputInput = z.input<typeof TrainingInputObjectSchema>;

/** Tabulates problems (true or fitted) into plain training data; `referencePrices` by product id. */
export function trainingDataFromProblems(
  problems: readonly PricingProblem[],
  referencePrices: Readonly<Record<string, number>> = {},
): ProductTrainingData[] {
  return problems.map((p) => {
    const rates: number[] = [];
    for (let t = 0; t < p.horizon; t++) {
      for (let i = 0; i < p.prices.length; i++) rates.push(p.rate(t, i));
    }
    const ref = referencePrices[p.productId];
    return {
      setup: {
        productId: p.productId,
        startDate: p.startDate,
        horizon: p.horizon,
        prices: [...p.prices],
        minPrice: p.minPrice,
        maxPrice: p.maxPrice,
        shutoff: p.shutoff,
        unitCost: p.unitCost,
        stock: p.stock,
        maxDailyChange: p.maxDailyChange,
        initialPrice: p.initialPrice,
        distribution: p.distribution,
        overdispersion: p.overdispersion,
      },
      ...(ref === undefined ? {} : { referencePrice: ref }),
      rates,
    };
  });
}

/** Checks what the schema cannot: table sizes, guardrails, one start date for the company. */
export function validateTrainingInput(input: TrainingInput): void {
  const start = at(input.products, 0).setup.startDate;
  const seen = new Set<string>();
  for (const p of input.products) {
    const s = p.setup;
    const where = `product ${s.productId}`;
    if (seen.has(s.productId)) throw new RangeError(`${where}: duplicate product id`);
    seen.add(s.productId);
    if (s.startDate !== start) throw new RangeError(`${where}: all products must share one start date`);
    if (p.rates.length !== s.horizon * s.prices.length) {
      throw new RangeError(`${where}: rates has ${p.rates.length} values, expected horizon x prices`);
    }
    if (s.minPrice > s.maxPrice) throw new RangeError(`${where}: minPrice above maxPrice`);
    for (let i = 0; i < s.prices.length; i++) {
      const price = at(s.prices, i);
      if (!insideGuardrails(price, s)) {
        throw new RangeError(`${where}: grid price ${price} outside the guardrails`);
      }
      if (i > 0 && !(price > at(s.prices, i - 1))) throw new RangeError(`${where}: prices must ascend`);
    }
    if (s.maxDailyChange !== null && s.initialPrice === null) {
      throw new RangeError(`${where}: maxDailyChange needs initialPrice`);
    }
  }
}
