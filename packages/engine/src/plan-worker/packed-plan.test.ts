import { describe, expect, it } from "vitest";
import type { PlannedPrice } from "../plan/company-plan.js";
import { packPlan, unpackPlan } from "./packed-plan.js";

const base = {
  product_id: "p1",
  date: "2026-11-26",
  price: 9.99,
  currency: "EUR",
  base_price: 10,
  rule_price: 9.5,
  expected_units: 1.2345,
  expected_revenue: 12.33,
  lowest_price_30d: null,
};

/** Rows in each shape `planPrices` builds, keys in its order. */
const rows = [
  { ...base, source: "rule", model_id: null },
  { ...base, product_id: "p2", override_id: "o1", jump_damped: true, source: "override", model_id: null },
  {
    ...base,
    product_id: "p\u{1F600}",
    lowest_price_30d: -0,
    source: "latest",
    model_id: "m1",
    expected_units_p10: 0.5,
    expected_units_p90: 2,
    exploratory: true,
    explanation: {
      rule_price: 9.4,
      weekday_index: 1.1,
      stock_cover_days: null,
      elasticity: -1.8,
      elasticity_se: null,
      observed_price_range: [8, 12],
      binding: "max_price",
    },
  },
  {
    ...base,
    date: "2026-11-27",
    source: "approved",
    model_id: "m1",
    expected_units_p10: 0.5,
    expected_units_p90: 2,
    exploratory: false,
    explanation: {
      rule_price: 9.4,
      weekday_index: 1,
      stock_cover_days: 3.5,
      elasticity: null,
      elasticity_se: null,
      observed_price_range: [10, 10],
      binding: null,
    },
  },
] as unknown as PlannedPrice[];

describe("a packed plan", () => {
  it("unpacks to the same rows, keys in the same order, -0 kept", () => {
    const packed = packPlan(rows);
    expect(packed).not.toBeNull();
    const back = unpackPlan(packed as NonNullable<typeof packed>);
    expect(JSON.stringify(back)).toBe(JSON.stringify(rows));
    expect(back).toStrictEqual(rows);
    expect(Object.is(back[2]?.lowest_price_30d, -0)).toBe(true);
    expect(packed?.strings.filter((s) => s === "EUR")).toHaveLength(1);
  });

  it("is refused (the rows go as they are) for rows it would not give back the same", () => {
    const first = rows[0] as PlannedPrice;
    expect(packPlan([{ ...first, extra: 1 } as PlannedPrice])).toBeNull();
    expect(packPlan([{ ...first, price: Number.NaN }])).toBeNull();
    expect(packPlan([{ ...first, model_id: undefined } as unknown as PlannedPrice])).toBeNull();
    const { product_id, ...rest } = first;
    expect(packPlan([{ ...rest, product_id } as PlannedPrice])).toBeNull();
  });

  it("packs an empty plan", () => {
    const packed = packPlan([]);
    expect(packed && unpackPlan(packed)).toEqual([]);
  });
});
