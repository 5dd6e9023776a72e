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
