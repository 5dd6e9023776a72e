import { describe, expect, it } from "vitest";
import { addDays } from "../base/calendar.js";
import type { RlPolicy } from "../policy/rl-policy.js";
import type { SalesRow } from "../sales/sales-row.js";
import { type ActivePolicy, planPrices } from "./company-plan.js";
import { dampedPrice, isJump, JUMP_FAR, movesFar } from "./jump-guard.js";
import { type CatalogProduct, productState } from "./product-state.js";

const TODAY = "2026-03-10";

describe("isJump", () => {
  it("needs at least two far moves and a share of the products judged", () => {
    expect(isJump([{ last: 20, price: 40 }])).toBe(false);
    expect(
      isJump([
        { last: 20, price: 40 },
        { last: 20, price: 10 },
      ]),
    ).toBe(true);
    // Two far moves among ten: a fifth, under the share.
    const calm = Array.from({ length: 8 }, () => ({ last: 20, price: 21 }));
    expect(isJump([...calm, { last: 20, price: 40 }, { last: 20, price: 40 }])).toBe(false);
    expect(isJump([...calm.slice(0, 4), { last: 20, price: 40 }, { last: 20, price: 40 }])).toBe(true);
    // Products never sold are not judged.
    expect(
      isJump([
        { last: null, price: 40 },
        { last: null, price: 40 },
        { last: 20, price: 40 },
      ]),
    ).toBe(false);
  });

  it("damps a far move to the band's edge and leaves the others", () => {
    expect(movesFar({ last: 20, price: 20 * (1 + JUMP_FAR) })).toBe(false);
    expect(dampedPrice({ last: 20, price: 40 })).toBeCloseTo(20 * (1 + JUMP_FAR));
    expect(dampedPrice({ last: 20, price: 5 })).toBeCloseTo(20 * (1 - JUMP_FAR));
    expect(dampedPrice({ last: 20, price: 22 })).toBe(22);
    expect(dampedPrice({ last: null, price: 40 })).toBe(40);
  });
});

const IDS = ["a", "b", "c"];

function catalogue(id: string): CatalogProduct {
  return {
    product_id: id,
    currency: "EUR",
    base_price: 20,
    unit_cost: 5,
    min_price: 5,
    max_price: 60,
    max_daily_change: null,
    stock: null,
    season_end: null,
    updated_at: "2026-01-01T00:00:00.000Z",
  };
}

/** Four weeks at 20, ten a day. */
function sold(id: string): SalesRow[] {
  return Array.from({ length: 28 }, (_, d) => ({
    date: addDays(TODAY, d - 28),
    product_id: id,
    price: 20,
    units_sold: 10,
    stock_on_hand: null,
  }));
}

/** A network that charges `prices[k]` for product k (every day): the plan's view of a model gone wrong. */
function fixedPolicy(prices: readonly number[]): ActivePolicy {
  const policy = {
    startDate: TODAY,
    findProduct: (id: string) => {
      const k = IDS.indexOf(id);
      return k < 0 ? undefined : k;
    },
    horizonOf: () => 60,
    priceStates: (batch: { product: Int32Array }) => new Int32Array(batch.product.length),
    priceAt: (k: number) => prices[k],
    expectedUnits: () => 3,
  } as unknown as RlPolicy;
  return { source: "approved", modelId: "mdl_jump", policy };
}

function plan(active: ActivePolicy) {
  return planPrices({
    today: TODAY,
    startDate: TODAY,
    endDate: addDays(TODAY, 2),
    products: IDS.map((id) => productState(catalogue(id), sold(id), TODAY, { horizonDays: 30 })),
    active,
    fit: () => null,
  });
}

describe("the jump guard in the plan", () => {
  it("damps a first day that moves many products far from their last price, and marks those rows", () => {
    const rows = plan(fixedPolicy([40, 40, 21]));
    const first = rows.filter((r) => r.date === TODAY);
    expect(first.map((r) => [r.product_id, r.price, r.jump_damped ?? false])).toEqual([
      ["a", 25, true],
      ["b", 25, true],
      ["c", 21, false],
    ]);
    // Every day is judged against the day before: the run climbs a quarter a day, each damped row marked.
    const second = rows.filter((r) => r.date === addDays(TODAY, 1));
    expect(second.map((r) => [r.price, r.jump_damped ?? false])).toEqual([
      [31.25, true],
      [31.25, true],
      [21, false],
    ]);
  });

  it("leaves one product's far move (the exploration range bounds that) and the rule alone", () => {
    const one = plan(fixedPolicy([40, 21, 21])).filter((r) => r.date === TODAY);
    expect(one.map((r) => r.price)).toEqual([40, 21, 21]);
    expect(one.every((r) => r.jump_damped === undefined)).toBe(true);
    const rule = plan({ source: "rule", modelId: null, policy: null });
    expect(rule.every((r) => r.jump_damped === undefined && r.price === r.rule_price)).toBe(true);
  });
});
