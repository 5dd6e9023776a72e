import { describe, expect, it } from "vitest";
import { numericMetrics } from "./numeric-metrics.js";

describe("numericMetrics", () => {
  it("keeps numbers only", () => {
    expect(
      numericMetrics({ policyMargin: 10, ruleMargin: null, safety: { z: 1 }, upliftPct: Number.NaN }),
    ).toEqual({
      policyMargin: 10,
    });
    expect(numericMetrics(null)).toEqual({});
  });

  it("sends a renamed metric under its new and its deprecated name, whichever the artifact carries", () => {
    expect(numericMetrics({ networkEstimatedMargin: 7.5 })).toEqual({
      networkEstimatedMargin: 7.5,
      estimatedMargin: 7.5,
    });
    // An artifact written before the rename.
    expect(numericMetrics({ estimatedMargin: 3 })).toEqual({ networkEstimatedMargin: 3, estimatedMargin: 3 });
  });
});

describe("the uplift interval", () => {
  it("runs from the summed worst-case gains to their mirror about the uplift, null without a safety report", () => {
    const safety = {
      products: [
        { decision: "rl", ruleMargin: 100, worstCaseGain: -2 },
        { decision: "rl", ruleMargin: 300, worstCaseGain: 6 },
        // On the rule: its worst case is the rule's own, a gain of 0.
        { decision: "rule", ruleMargin: 100, worstCaseGain: -40 },
      ],
    };
    expect(numericMetrics({ upliftPct: 3, safety }).upliftIntervalPct).toEqual({ low: 0.8, high: 5.2 });
    expect(numericMetrics({ upliftPct: 3 }).upliftIntervalPct).toBeNull();
    // Never above the point itself.
    expect(
      numericMetrics({
        upliftPct: 1,
        safety: { products: [{ decision: "rl", ruleMargin: 10, worstCaseGain: 5 }] },
      }).upliftIntervalPct,
    ).toEqual({ low: 1, high: 1 });
    // Rounded outwards: a point between cents stays inside its interval.
    const tiny = numericMetrics({
      upliftPct: -0.0387,
      safety: { products: [{ decision: "rl", ruleMargin: 10, worstCaseGain: 5 }] },
    }).upliftIntervalPct;
    expect(tiny).toEqual({ low: -0.04, high: -0.03 });
  });
});
