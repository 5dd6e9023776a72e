import { describe, expect, it } from "vitest";
import { edgeLines, edgeRate } from "./edge-extrapolation.js";

const PRICES = [16, 17, 18, 19, 20, 21, 22, 23, 24];
/** 70 days at each of 18 ... 22 selling exactly `rate(p)` a day, none elsewhere. */
function sales(rate: (p: number) => number) {
  return PRICES.map((p) =>
    p >= 18 && p <= 22 ? { exposure: 70, units: 70 * rate(p) } : { exposure: 0, units: 0 },
  );
}
const kink = (p: number) => 10 * (p / 20) ** (p <= 20 ? -1 : -6);

describe("edgeLines", () => {
  it("fits each end of a kink its own slope, where the one fitted curve averages them", () => {
    const lines = edgeLines(PRICES, sales(kink), { elasticity: 3.4, stdError: 0.3 });
    expect(lines.below?.elasticity).toBeCloseTo(1, 1);
    expect(lines.above?.elasticity).toBeCloseTo(6, 1);
    // The line runs through the sales it was fitted to.
    if (lines.below === undefined) throw new Error("no line below");
    expect(edgeRate(lines.below, 19)).toBeCloseTo(kink(19), 1);
    expect(edgeRate(lines.below, 16)).toBeCloseTo(kink(16), 1);
  });

  it("keeps the fitted curve at an end whose slope agrees with it within the noise", () => {
    const lines = edgeLines(PRICES, sales(kink), { elasticity: 1.5, stdError: 0.3 });
    expect(lines.below).toBeUndefined();
    expect(lines.above).toBeDefined();
    const straight = edgeLines(
      PRICES,
      sales((p) => 10 * (p / 20) ** -2),
      { elasticity: 2, stdError: 0.3 },
    );
    expect(straight).toEqual({});
  });

  it("has no line with under two prices sold", () => {
    const one = PRICES.map((p) => (p === 20 ? { exposure: 30, units: 300 } : { exposure: 0, units: 0 }));
    expect(edgeLines(PRICES, one, { elasticity: 2, stdError: 0.3 })).toEqual({});
  });
});
