import seedrandom from "seedrandom";
import { addDays, weekdayOf } from "../base/calendar.js";
import { at } from "../base/checked-index.js";
import { roundToMinor } from "../base/currency.js";
import { insideGuardrailsOnly } from "../base/guardrails.js";
import { nearestPrintable, priceFormat } from "../base/price-format.js";
import { catalogGrid, expandGrid, widestGridStep } from "../base/price-grid.js";
import type { ProblemSetup } from "../problem/problem-setup.js";
import {
  BERNOULLI,
  type DemandDistribution,
  expectedDemand,
  negativeBinomial,
  POISSON,
} from "../problem/sales-distribution.js";
import { type Uniform, uniformBetween } from "../random/random-draws.js";
import type { SalesRow } from "../sales/sales-row.js";
import { sampleDemand } from "./sampling.js";
import { type ProductSpec, type Scenario, type ScenarioInput, ScenarioSchema } from "./scenario-schema.js";
import { type TrueDemand, trueDemandFromSpec, trueRate } from "./true-demand.js";

export interface MarketProduct {
  readonly productId: string;
  readonly referencePrice: number;
  readonly unitCost: number;
  readonly truth: TrueDemand;
  /** The horizon's selling problem without demand: feed it to `problemFromTruth` or `problemFromFit`. */
  readonly setup: ProblemSetup;
  /** The fully defaulted spec the product was built from. */
  readonly spec: ProductSpec;
}

export interface Market {
  readonly scenario: Scenario;
  readonly products: readonly MarketProduct[];
  /** Daily rows for every product over the history window, sorted by date then product id. */
  readonly history: SalesRow[];
}

/** Generates a market and its sales history; the same scenario (same seed) always gives identical output. */
export function generateMarket(input: Scenario | ScenarioInput): Market {
  const scenario = ScenarioSchema.parse(input);
  const specs = [...(scenario.products ?? []), ...companyProducts(scenario)];
  const ids = new Set<string>();
  for (const s of specs) {
    if (ids.has(s.product_id)) throw new Error(`duplicate product_id ${s.product_id}`);
    ids.add(s.product_id);
  }
  const products = specs.map((spec) => buildProduct(scenario, spec));
  const history: SalesRow[] = [];
  for (const product of products) history.push(...simulateHistory(scenario, product));
  history.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.product_id < b.product_id ? -1 : 1));
  return { scenario, products, history };
}

function buildProduct(scenario: Scenario, spec: ProductSpec): MarketProduct {
  const ref = spec.reference_price;
  const { currency } = scenario;
  const prices =
    spec.grid === undefined
      ? catalogGrid({
          basePrice: ref,
          minPrice: spec.min_price ?? roundToMinor(0.5 * ref, currency),
          maxPrice: spec.max_price ?? roundToMinor(2 * ref, currency),
          maxDailyChange: scenario.max_daily_change,
          currency,
          endings: scenario.price_endings,
        })
      : expandGrid(spec.grid, currency);
  const minPrice = spec.min_price ?? at(prices, 0);
  const maxPrice = spec.max_price ?? at(prices, prices.length - 1);
  const inside = insideGuardrailsOnly(prices, { minPrice, maxPrice });
  const truth = trueDemandFromSpec(spec.demand, ref, prices);
  const law = lawOf(scenario, spec);
  let stock: number | null = spec.stock ?? null;
  if (spec.stock_ratio !== undefined) {
    let expected = 0;
    for (let t = 0; t < scenario.horizon; t++)
      expected += expectedDemand(law, trueRate(truth, weekdayOf(addDays(scenario.start_date, t)), t, ref));
    stock = Math.round(spec.stock_ratio * expected);
  }
  const setup: ProblemSetup = {
    productId: spec.product_id,
    startDate: scenario.start_date,
    horizon: scenario.horizon,
    prices: inside,
    minPrice,
    maxPrice,
    shutoff: scenario.shutoff,
    unitCost: spec.unit_cost,
    stock,
    // Endings wider than the limit win (DESIGN §11), as in a catalogue product's problem.
    maxDailyChange:
      scenario.max_daily_change === null || scenario.price_endings.length === 0
        ? scenario.max_daily_change
        : Math.max(scenario.max_daily_change, widestGridStep(inside)),
    initialPrice:
      scenario.max_daily_change === null
        ? null
        : scenario.price_endings.length === 0
          ? (spec.initial_price ?? ref)
          : (nearestPrintable(priceFormat(currency, scenario.price_endings), spec.initial_price ?? ref) ??
            spec.initial_price ??
            ref),
    ...law,
  };
  return { productId: spec.product_id, referencePrice: ref, unitCost: spec.unit_cost, truth, setup, spec };
}

/** A product's demand law: the scenario's family, with the product's over-dispersion for a negative binomial. */
function lawOf(scenario: Scenario, spec: ProductSpec): DemandDistribution {
  const alpha = spec.demand.overdispersion;
  if (scenario.distribution === "negative_binomial") return negativeBinomial(alpha);
  if (alpha > 0) {
    throw new Error(
      `product ${spec.product_id}: demand.overdispersion needs distribution "negative_binomial" (got "${scenario.distribution}")`,
    );
  }
  return scenario.distribution === "bernoulli" ? BERNOULLI : POISSON;
}

/** A history path (one value per history day) must cover every history day exactly. */
function checkPath(
  spec: ProductSpec,
  field: string,
  path: readonly number[] | undefined,
  days: number,
): void {
  if (path !== undefined && path.length !== days) {
    throw new Error(
      `product ${spec.product_id}: ${field} has ${path.length} values, one per history day (${days}) expected`,
    );
  }
}

function companyProducts(scenario: Scenario): ProductSpec[] {
  const c = scenario.company;
  if (!c) return [];
  const rng: Uniform = seedrandom(`${scenario.seed}:company`);
  const width = String(c.count).length;
  const out: ProductSpec[] = [];
  for (let i = 0; i < c.count; i++) {
    const ref = roundToMinor(uniformBetween(rng, ...c.reference_price), scenario.currency);
    const round = (x: number) => roundToMinor(x, scenario.currency);
    const g = c.grid_relative;
    const stockRatio = c.stock_ratio ? uniformBetween(rng, ...c.stock_ratio) : undefined;
    // Drawn only when asked for, so a Poisson company draws exactly what it always drew.
    const alpha = c.overdispersion[1] > 0 ? uniformBetween(rng, ...c.overdispersion) : 0;
    out.push({
      product_id: `${c.id_prefix}${String(i + 1).padStart(width, "0")}`,
      reference_price: ref,
      unit_cost: round(ref * uniformBetween(rng, ...c.unit_cost_fraction)),
      ...(g === undefined
        ? {}
        : { grid: { min: round(g.min * ref), max: round(g.max * ref), step: g.step * ref } }),
      ...(stockRatio === undefined ? { stock: null } : { stock_ratio: stockRatio }),
      demand: {
        family: c.family,
        base_rate: uniformBetween(rng, ...c.base_rate),
        elasticity: uniformBetween(rng, ...c.elasticity),
        weekday: c.weekday.map((w) => w * (1 + uniformBetween(rng, -c.weekday_jitter, c.weekday_jitter))),
        overdispersion: alpha,
        promotion_lift: 1,
      },
    });
  }
  return out;
}

/**
 * The product's history rows: the price path or drawn price levels, the level path, promoted days (their own seeded
 * stream, so a market without promotions draws exactly what it always drew) and each day's demand.
 */
function simulateHistory(scenario: Scenario, product: MarketProduct): SalesRow[] {
  const h = scenario.history;
  const { spec } = product;
  checkPath(spec, "history.price_path", h.price_path, h.days);
  checkPath(spec, "demand.history_multipliers", spec.demand.history_multipliers, h.days);
  const seed = h.seed ?? scenario.seed;
  const rng: Uniform = seedrandom(`${seed}:history:${product.productId}`);
  const promotions: Uniform | null =
    h.promoted_share > 0 ? seedrandom(`${seed}:promotions:${product.productId}`) : null;
  const ref = product.referencePrice;
  const format = priceFormat(scenario.currency, scenario.price_endings);
  // The shop printed its history too: on the minor unit, then on its endings where it has some.
  const printed = (x: number) => {
    const price = roundToMinor(x, scenario.currency);
    return scenario.price_endings.length === 0 ? price : (nearestPrintable(format, price) ?? price);
  };
  const rows: SalesRow[] = [];
  let price = ref;
  for (let d = 0; d < h.days; d++) {
    if (h.price_path !== undefined) price = printed(ref * at(h.price_path, d));
    else if (d % h.change_every_days === 0) {
      const level = h.price_levels
        ? at(h.price_levels, Math.floor(rng() * h.price_levels.length))
        : 1 + uniformBetween(rng, -h.price_variation, h.price_variation);
      price = printed(ref * level);
    }
    const date = addDays(scenario.start_date, d - h.days);
    const promoted = promotions === null ? 0 : promotions() < h.promoted_share ? 1 : 0;
    const rate = trueRate(product.truth, weekdayOf(date), d - h.days, price, promoted);
    const units = sampleDemand(rng, product.setup, rate);
    rows.push({
      date,
      product_id: product.productId,
      price,
      units_sold: units,
      stock_on_hand: null,
      ...(promotions === null ? {} : { promoted }),
    });
  }
  return rows;
}
