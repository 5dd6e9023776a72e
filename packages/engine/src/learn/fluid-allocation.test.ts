import { describe, expect, it } from "vitest";
import { fluidChoice } from "./fluid-allocation.js";

// Ferreira, Simchi-Levi & Wang's market: one customer a day.
const prices = [29.9, 34.9, 39.9, 44.9];
const sales = [0.8, 0.6, 0.3, 0.1];

describe("fluidChoice", () => {
  it("with unlimited stock charges the price of the largest expected margin", () => {
    const c = fluidChoice({
      prices,
      unitCost: 0,
      sales,
      volumes: [1, 1, 1],
      stock: Number.POSITIVE_INFINITY,
    });
    expect(c).toEqual({ index: 0, lowerBidIndex: 0, lowerBidWeight: 0, bid: 0 });
  });

  it("with stock for a quarter of the days mixes 39.90 and 44.90 as the LP does (3 : 1)", () => {
    const c = fluidChoice({ prices, unitCost: 0, sales, volumes: new Array(100).fill(1), stock: 25 });
    expect(prices[c.index]).toBe(44.9);
    expect(prices[c.lowerBidIndex]).toBe(39.9);
    expect(c.lowerBidWeight).toBeCloseTo(0.75, 6);
    // The bid at which 39.90 and 44.90 earn the same: (39.9 - b) 0.3 = (44.9 - b) 0.1.
    expect(c.bid).toBeCloseTo(37.4, 6);
  });

  it("ignores the stock while the unconstrained plan sells less than it", () => {
    const c = fluidChoice({ prices, unitCost: 0, sales, volumes: new Array(10).fill(1), stock: 9 });
    expect(c.index).toBe(0);
    expect(c.lowerBidWeight).toBe(0);
  });
});
