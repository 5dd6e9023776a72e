import { type PackedPlan, type PlannedPrice, packPlan } from "@pricing/engine";
import type { Recommendation } from "@pricing/http-adapter";
import { describe, expect, it } from "vitest";
import {
  decodeRecommendationDay,
  encodePackedDays,
  encodeRecommendationDays,
} from "./recommendation-days.js";

/** A seeded stream: the items' numbers are arbitrary doubles, not round prices. */
function uniform(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

function items(dates: string[], products: string[], seed = 7): Recommendation[] {
  const u = uniform(seed);
  return dates.flatMap((date) =>
    products.map((product_id, i) => ({
      product_id,
      date,
      price: Math.round(u() * 10_000) / 100,
      currency: "EUR",
      base_price: 20,
      rule_price: u() * 30,
      expected_units: u() * 9,
      expected_revenue: u() * 200,
      source: i === 1 ? ("override" as const) : ("approved" as const),
      model_id: "mdl_1",
      expected_units_p10: i === 2 ? null : Math.floor(u() * 3),
      expected_units_p90: i === 2 ? null : 3 + u(),
      exploratory: i === 2 ? null : u() < 0.5,
      override_id: i === 1 ? "ovr_1" : null,
      lowest_price_30d: i === 0 ? null : u() * 20,
      explanation:
        i === 2
          ? null
          : {
              rule_price: u() * 30,
              weekday_index: u() * 2,
              stock_cover_days: i === 0 ? null : u() * 40,
              elasticity: i === 0 ? null : -3 * u(),
              elasticity_se: i === 0 ? null : u(),
              observed_price_range: [u() * 10, 10 + u() * 10] as [number, number],
              binding: i === 3 ? ("max_daily_change" as const) : null,
            },
    })),
  );
}

const decodeAll = (recs: Recommendation[], explain: boolean, productId?: string) =>
  encodeRecommendationDays(recs)
    .sort((a, b) => (a.date < b.date ? -1 : 1))
    .flatMap((day) => decodeRecommendationDay(day, explain, productId));

describe("recommendation days", () => {
  it("reads back every item bit for bit, by date then product id, explanations only when asked", () => {
    const written = items(["2026-03-02", "2026-03-01"], ["p3", "p1", "p2", "p0"]);
    const expected = [...written].sort(
      (a, b) => a.date.localeCompare(b.date) || a.product_id.localeCompare(b.product_id),
    );
    expect(decodeAll(written, true)).toStrictEqual(expected);
    expect(decodeAll(written, false)).toStrictEqual(expected.map(({ explanation: _, ...r }) => r));
    expect(decodeAll(written, true, "p2")).toStrictEqual(expected.filter((r) => r.product_id === "p2"));
    expect(decodeAll(written, true, "absent")).toEqual([]);
  });

  it("stores a day of one item, and a run without explanations, as nulls where asked", () => {
    const [only] = items(["2026-03-01"], ["solo"]);
    if (!only) throw new Error("no item");
    const { explanation: _, ...plain } = only;
    expect(decodeAll([plain], true)).toStrictEqual([{ ...plain, explanation: null }]);
    expect(decodeAll([plain], false, "solo")).toStrictEqual([plain]);
    expect(decodeAll([plain], false, "other")).toEqual([]);
    expect(encodeRecommendationDays([plain])[0]?.explanations).toBeNull();
  });

  it("orders product ids by code point, as the byte order of the per-item rows did", () => {
    const ids = ["\u{1f600}", "\uff01", "b", "B", "a"];
    const read = decodeAll(items(["2026-03-01"], ids), false).map((r) => r.product_id);
    expect(read).toEqual(["B", "a", "b", "\uff01", "\u{1f600}"]);
  });

  it("refuses the same product twice on a date", () => {
    expect(() => encodeRecommendationDays(items(["2026-03-01"], ["a", "b", "a"]))).toThrow(/twice/);
  });

  it("stores a plan packed by the planning threads exactly as the items it stands for", () => {
    const recs = items(["2026-03-02", "2026-03-01"], ["p3", "p\u{1F600}", "p2", "p\uE000", "p0"]);
    // The engine's rows for those items: fields absent where the API's item has null, in planPrices' key order.
    const rows = recs.map((r) => {
      const row: Record<string, unknown> = {
        product_id: r.product_id,
        date: r.date,
        price: r.price,
        currency: r.currency,
        base_price: r.base_price,
        rule_price: r.rule_price,
        expected_units: r.expected_units,
        expected_revenue: r.expected_revenue,
        lowest_price_30d: r.lowest_price_30d,
      };
      if (r.override_id !== null) row.override_id = r.override_id;
      row.source = r.source;
      row.model_id = r.model_id;
      if (r.expected_units_p10 !== null) {
        row.expected_units_p10 = r.expected_units_p10;
        row.expected_units_p90 = r.expected_units_p90;
        row.exploratory = r.exploratory;
      }
      if (r.explanation != null) row.explanation = r.explanation;
      return row as unknown as PlannedPrice;
    });
    const packed = packPlan(rows) as PackedPlan;
    expect(packed).not.toBeNull();
    expect(encodePackedDays(packed)).toStrictEqual(encodeRecommendationDays(recs));
    const unexplained = packPlan(rows.map(({ explanation: _, ...r }) => r)) as PackedPlan;
    expect(encodePackedDays(unexplained)).toStrictEqual(
      encodeRecommendationDays(recs.map((r) => ({ ...r, explanation: null }))),
    );
    expect(() => encodePackedDays(packPlan([...rows, rows[0] as PlannedPrice]) as PackedPlan)).toThrow(
      /twice on 2026-03-02/,
    );
  });
});
