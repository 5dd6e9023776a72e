import { generateMarket, type ScenarioInput } from "@pricing/engine";
import { describe, expect, it } from "vitest";
import { COMPLETE_JOURNEY_FILE } from "../closed-loop-suites.js";
import { loadScenarioFile } from "../scenario-file.js";
import { ABOVE_BAND_FACTOR, BELOW_BAND_FACTOR, CJ_WINDOW, realShapedMarket } from "./real-shaped-markets.js";

describe("realShapedMarket", () => {
  // A year of sales from a known market: elasticity 2, weekend peak, weekly +-15 % prices, a level of 1 through
  // September and 1.4 from October (the season), NB2 noise with alpha 0.05.
  const level = (d: number) => (d < 273 ? 1 : 1.4);
  const truth: ScenarioInput = {
    name: "known",
    seed: 7,
    start_date: "2018-01-01",
    horizon: 7,
    distribution: "negative_binomial",
    history: { days: 365, price_variation: 0.15, change_every_days: 7 },
    products: [
      {
        product_id: "p",
        reference_price: 2,
        demand: {
          family: "constant_elasticity",
          base_rate: 20,
          elasticity: 2,
          weekday: [0.9, 0.9, 0.9, 0.9, 1, 1.2, 1.2],
          overdispersion: 0.05,
          history_multipliers: Array.from({ length: 365 }, (_, d) => level(d)),
        },
      },
    ],
  };
  const market = generateMarket(truth);
  const product = {
    product_id: "p",
    currency: "USD",
    base_price: 2,
    unit_cost: null,
    min_price: null,
    max_price: null,
    max_daily_change: null,
    stock: null,
    season_end: null,
    updated_at: "2017-01-01T00:00:00.000Z",
  };
  const { scenario, fit } = realShapedMarket(product, market.history, CJ_WINDOW, 9);

  it("recovers the market's elasticity, its level path and its dispersion", () => {
    expect(fit.elasticity).toBeGreaterThan(1.7);
    expect(fit.elasticity).toBeLessThan(2.3);
    expect(fit.seasonLevel).toBeGreaterThan(1.3);
    expect(fit.seasonLevel).toBeLessThan(1.5);
    expect(fit.overdispersion).toBeLessThan(0.12);
    const demand = scenario.products?.[0]?.demand;
    const historyLevel = demand?.history_multipliers ?? [];
    const mean = historyLevel.reduce((a, b) => a + b, 0) / historyLevel.length;
    expect(mean).toBeGreaterThan(0.9);
    expect(mean).toBeLessThan(1.1);
    expect(demand?.day_multipliers).toHaveLength(92);
  });

  it("writes the history's own prices as the price path and a table with another shape outside the band", () => {
    const spec = scenario.products?.[0];
    const path = scenario.history?.price_path ?? [];
    expect(path).toHaveLength(273);
    const sold = market.history.filter((r) => r.date < CJ_WINDOW.start);
    expect(path.map((m) => Math.round(m * 2 * 100) / 100)).toEqual(sold.map((r) => r.price));
    const grid = spec?.grid as number[];
    const table = spec?.demand.table ?? [];
    expect(table).toHaveLength(grid.length);
    const [lo, hi] = fit.band;
    const slope = (i: number) =>
      -Math.log((table[i + 1] ?? 0) / (table[i] ?? 1)) / Math.log((grid[i + 1] ?? 0) / (grid[i] ?? 1));
    // A step between two grid prices inside the band, above it and below it.
    const step = (within: (a: number, b: number) => boolean) =>
      grid.findIndex((a, i) => i + 1 < grid.length && within(a, grid[i + 1] ?? 0));
    const inside = step((a, b) => a >= lo && b <= hi);
    const above = step((a) => a > hi);
    const below = step((_, b) => b < lo);
    expect([inside, above, below].every((i) => i >= 0)).toBe(true);
    expect(slope(inside)).toBeCloseTo(fit.elasticity, 1);
    expect(slope(above)).toBeCloseTo(ABOVE_BAND_FACTOR * fit.elasticity, 1);
    expect(slope(below)).toBeCloseTo(BELOW_BAND_FACTOR * fit.elasticity, 1);
    // The market it describes generates: the same history length, negative binomial draws.
    expect(generateMarket(scenario).history).toHaveLength(273);
  });
});

describe("the committed real-shaped markets", () => {
  it("are five valid negative binomial markets with a real price path and level path each", () => {
    const markets = loadScenarioFile(COMPLETE_JOURNEY_FILE);
    expect(markets).toHaveLength(5);
    for (const m of markets) {
      expect(m.distribution).toBe("negative_binomial");
      expect(m.history?.price_path).toHaveLength(273);
      const demand = m.products?.[0]?.demand;
      expect(demand?.history_multipliers).toHaveLength(273);
      expect(demand?.day_multipliers).toHaveLength(92);
      expect(demand?.overdispersion).toBeGreaterThan(0);
      expect(generateMarket(m).history).toHaveLength(273);
    }
  });
});
