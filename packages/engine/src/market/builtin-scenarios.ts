import type { ScenarioInput } from "./scenario-schema.js";

const tightBase = {
  seed: 11,
  start_date: "2026-03-02",
  horizon: 60,
  history: { days: 365, price_variation: 0.1, change_every_days: 7 },
};

const product = (overrides: Record<string, unknown> = {}) => ({
  product_id: "sku-1",
  reference_price: 20,
  unit_cost: 6,
  demand: {
    family: "constant_elasticity" as const,
    base_rate: 8,
    elasticity: 2.5,
    weekday: [0.85, 0.9, 0.95, 1, 1.1, 1.3, 0.9],
  },
  ...overrides,
});

/**
 * The built-in benchmark suite: each market has a known true demand, so every policy can be scored against the
 * exact optimum. `quick` keeps the seven core markets (leaving out the seasonal and Bernoulli ones) and shrinks
 * the company to 30 products, so that trained policies fit the quick time budget.
 */
export function builtinScenarios(options: { quick?: boolean } = {}): ScenarioInput[] {
  const extended = new Set(["seasonal-weekday-elasticity", "bernoulli-shutoff"]);
  const all: ScenarioInput[] = [
    {
      name: "unlimited-stock",
      description: "no stock limit: the optimum is a per-day argmax",
      ...tightBase,
      seed: 1,
      products: [product({ stock: null })],
    },
    {
      name: "tight-stock",
      description: "stock 70 % of demand at the reference price; 365 days of weekly +-10 % price changes",
      ...tightBase,
      seed: 2,
      products: [product({ stock_ratio: 0.7 })],
    },
    {
      name: "loose-stock",
      description: "stock 150 % of demand at the reference price",
      ...tightBase,
      seed: 3,
      products: [product({ stock_ratio: 1.5 })],
    },
    {
      name: "max-daily-change",
      description: "tight stock with prices allowed to move at most 10 % a day",
      ...tightBase,
      seed: 4,
      max_daily_change: 0.1,
      products: [product({ stock_ratio: 0.7, initial_price: 20 })],
    },
    {
      name: "flat-history",
      description: "tight stock, but history prices only varied +-2 %: the elasticity is barely identified",
      ...tightBase,
      seed: 5,
      history: { days: 365, price_variation: 0.02, change_every_days: 7 },
      products: [product({ stock_ratio: 0.7 })],
    },
    {
      name: "family-mismatch",
      description: "true demand is exponential while the model assumes constant elasticity",
      ...tightBase,
      seed: 6,
      products: [
        product({
          stock_ratio: 0.8,
          demand: {
            family: "exponential",
            base_rate: 8,
            elasticity: 2.5,
            weekday: [0.85, 0.9, 0.95, 1, 1.1, 1.3, 0.9],
          },
        }),
      ],
    },
    {
      name: "seasonal-weekday-elasticity",
      description: "weekday elasticities and a seasonal ramp the model does not see",
      ...tightBase,
      seed: 7,
      products: [
        product({
          stock_ratio: 0.75,
          demand: {
            family: "constant_elasticity",
            base_rate: 8,
            elasticity: [2.2, 2.3, 2.4, 2.5, 2.6, 2.9, 2.4],
            weekday: [0.85, 0.9, 0.95, 1, 1.1, 1.3, 0.9],
            day_multipliers: Array.from({ length: 60 }, (_, t) => 0.8 + (0.4 * t) / 59),
          },
        }),
      ],
    },
    {
      name: "bernoulli-shutoff",
      description:
        "Ferreira, Simchi-Levi & Wang (2018): one customer a day buys with a price-dependent probability",
      seed: 9,
      start_date: "2026-03-02",
      horizon: 100,
      distribution: "bernoulli",
      shutoff: true,
      history: {
        days: 365,
        price_levels: [29.9, 34.9, 39.9, 44.9].map((p) => p / 34.9),
        change_every_days: 7,
      },
      products: [
        {
          product_id: "sku-1",
          reference_price: 34.9,
          grid: [29.9, 34.9, 39.9, 44.9],
          stock: 25,
          demand: { family: "table", table: [0.8, 0.6, 0.3, 0.1] },
        },
      ],
    },
    {
      name: options.quick ? "company-30" : "company-100",
      description: "a 100-product company drawn from ranges, some stock-limited",
      seed: 8,
      start_date: "2026-03-02",
      horizon: 28,
      history: { days: 365, price_variation: 0.1, change_every_days: 7 },
      company: {
        count: options.quick ? 30 : 100,
        stock_ratio: [0.6, 1.2],
      },
    },
  ];
  return options.quick ? all.filter((s) => !extended.has(s.name)) : all;
}
