import { describe, expect, it } from "vitest";
import { CONFIRM_DAYS, explorationRange, SEEN_DAYS } from "./exploration-range.js";

const grid = [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26];

describe("explorationRange", () => {
  it("free prices on the whole grid, off inside the observed prices only", () => {
    const seen = new Map([
      [19.5, 3],
      [21.2, 30],
    ]);
    expect(explorationRange(grid, "free", seen, 20)).toEqual({ lo: 0, hi: 10 });
    expect(explorationRange(grid, "off", seen, 20)).toEqual({ lo: 4, hi: 5 });
  });

  it("with no history the observed range is the base price, and cautious may step one grid price beyond it", () => {
    expect(explorationRange(grid, "off", new Map(), 20)).toEqual({ lo: 4, hi: 4 });
    expect(explorationRange(grid, "cautious", new Map(), 20)).toEqual({ lo: 3, hi: 5 });
  });

  it("cautious widens only once a new price has been held for a week", () => {
    const before = new Map([
      [20, 100],
      [22, SEEN_DAYS - 1],
    ]);
    // 22 is observed (so allowed) but not yet held: the next step waits.
    expect(explorationRange(grid, "cautious", before, 20)).toEqual({ lo: 3, hi: 6 });
    const after = new Map([
      [20, 100],
      [22, SEEN_DAYS],
    ]);
    expect(explorationRange(grid, "cautious", after, 20)).toEqual({ lo: 3, hi: 7 });
  });

  it("cautious widens sooner where the new price's sales confirm the model", () => {
    const days = new Map([
      [20, 100],
      [22, CONFIRM_DAYS],
    ]);
    expect(explorationRange(grid, "cautious", days, 20, (p) => p === 22)).toEqual({ lo: 3, hi: 7 });
    expect(explorationRange(grid, "cautious", days, 20, (p) => p !== 22)).toEqual({ lo: 3, hi: 6 });
  });

  it("steps a whole grid price even on a coarse grid", () => {
    const coarse = [29.9, 34.9, 39.9, 44.9];
    expect(explorationRange(coarse, "cautious", new Map(), 34.9)).toEqual({ lo: 0, hi: 2 });
  });
});
