import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import {
  type FluidInput,
  fluidChoice,
  fluidMemo,
  seasonTails,
  tailAt,
  volumeGroups,
} from "./fluid-allocation.js";

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

  it("picks as a scan per distinct volume would, near-ties included", () => {
    const rng = seedrandom("fluid-shared-scan");
    for (let n = 0; n < 300; n++) {
      const prices = Array.from({ length: 2 + Math.floor(rng() * 6) }, (_, i) => 10 + i * (0.5 + rng()));
      // Every third case: sales that make two prices' margins tie at a bid near the bisection's.
      const sales = prices.map((p) => 5 * (p / 10) ** -(1 + 3 * rng()));
      if (n % 3 === 0 && prices.length > 2)
        sales[2] = ((sales[1] ?? 0) * ((prices[1] ?? 0) - 4)) / ((prices[2] ?? 0) - 4);
      const weekday = Array.from({ length: 7 }, () => 0.5 + rng());
      const volumes = Array.from({ length: 30 + Math.floor(rng() * 60) }, (_, d) => weekday[d % 7] ?? 1);
      const input: FluidInput = { prices, unitCost: 2, sales, volumes, stock: rng() * 100 };
      expect(fluidChoice(input), String(n)).toEqual(scanPerVolume(input));
    }
  });

  it("groups every tail of a season as volumeGroups groups it", () => {
    const rng = seedrandom("tail-groups");
    const weekday = Array.from({ length: 7 }, () => 0.5 + rng());
    const season = Array.from({ length: 120 }, (_, d) => (weekday[d % 7] ?? 1) * (d % 17 === 3 ? 1.4 : 1));
    const tails = seasonTails(season);
    season.forEach((_, d) => {
      expect(tailAt(tails, d), String(d)).toEqual(volumeGroups(season.slice(d)));
    });
    // Asked out of order (a date again, one earlier, a jump ahead): built again, or moved on day by day.
    for (const d of [40, 40, 7, 9, 60, 119, 0, 118, 3]) {
      expect(tailAt(tails, d), `again ${d}`).toEqual(volumeGroups(season.slice(d)));
    }
  });

  it("chooses the same through a memo kept across a plan's days, stock and days left changing", () => {
    const rng = seedrandom("fluid-memo");
    for (let n = 0; n < 60; n++) {
      const prices = Array.from({ length: 2 + Math.floor(rng() * 6) }, (_, i) => 10 + i * (0.5 + rng()));
      const sales = prices.map((p) => 5 * (p / 10) ** -(1 + 3 * rng()));
      if (n % 3 === 0 && prices.length > 2)
        sales[2] = ((sales[1] ?? 0) * ((prices[1] ?? 0) - 4)) / ((prices[2] ?? 0) - 4);
      const weekday = Array.from({ length: 7 }, () => 0.5 + rng());
      const season = Array.from({ length: 40 + Math.floor(rng() * 50) }, (_, d) => weekday[d % 7] ?? 1);
      const memo = fluidMemo();
      let stock = rng() * 150;
      for (let day = 0; day < season.length; day++) {
        const volumes = season.slice(day);
        const input: FluidInput = { prices, unitCost: 2, sales, volumes, stock };
        const plain = fluidChoice(input);
        expect(fluidChoice(input, volumeGroups(volumes), memo), `${n} day ${day}`).toEqual(plain);
        // The season's own volumes from the day on, as a plan passes them (no copy of the tail).
        const fromDay: FluidInput = { prices, unitCost: 2, sales, volumes: season, from: day, stock };
        expect(fluidChoice(fromDay), `${n} day ${day} from`).toEqual(plain);
        stock = Math.max(0, stock - (sales[plain.index] ?? 0) * (volumes[0] ?? 1));
      }
    }
  });
});

describe("fluidChoice's memo as the days left's volumes close in", () => {
  it("chooses as without it where each day's least and most volume move inside the day before's", () => {
    const rng = seedrandom("fluid-memo-narrowing");
    let narrowed = 0;
    for (let n = 0; n < 80; n++) {
      const prices = Array.from({ length: 2 + Math.floor(rng() * 7) }, (_, i) => 10 + i * (0.5 + rng()));
      const sales = prices.map((p) => 5 * (p / 10) ** -(1 + 3 * rng()));
      // Near-ties, whose answer depends on the volumes (-1), as the volumes close in.
      if (n % 2 === 0 && prices.length > 2)
        sales[2] = ((sales[1] ?? 0) * ((prices[1] ?? 0) - 2)) / ((prices[2] ?? 0) - 2);
      // A trend and spikes (holiday eves): the least and most of the days left change often.
      const season = Array.from(
        { length: 30 + Math.floor(rng() * 60) },
        (_, d) => (0.5 + rng()) * (1 + d / 60) * (rng() < 0.08 ? 2 + rng() : 1),
      );
      const memo = fluidMemo();
      let stock = rng() * 200;
      let last: [number, number] | null = null;
      for (let day = 0; day < season.length; day++) {
        const volumes = season.slice(day);
        const groups = volumeGroups(volumes);
        if (last !== null && (groups.least !== last[0] || groups.most !== last[1])) narrowed++;
        last = [groups.least, groups.most];
        const input: FluidInput = { prices, unitCost: 2, sales, volumes, stock };
        const plain = fluidChoice(input);
        expect(fluidChoice(input, groups, memo), `${n} day ${day}`).toEqual(plain);
        stock = Math.max(0, stock - (sales[plain.index] ?? 0) * (volumes[0] ?? 1));
      }
      // The whole season again: its range holds the last day's, and the memo must start over.
      for (const at of [0, 1]) {
        const input: FluidInput = {
          prices,
          unitCost: 2,
          sales,
          volumes: season.slice(at),
          stock: rng() * 200,
        };
        expect(fluidChoice(input, volumeGroups(input.volumes), memo), `${n} again ${at}`).toEqual(
          fluidChoice(input),
        );
      }
    }
    expect(narrowed).toBeGreaterThan(500);
  });
});

/** `fluidChoice` as it was written first: every bid's pick scanned again for each distinct volume. */
function scanPerVolume(input: FluidInput) {
  const bestAt = (bid: number, volume: number) => {
    let best = 0;
    let value = Number.NEGATIVE_INFINITY;
    input.prices.forEach((p, i) => {
      const v = (p - input.unitCost - bid) * (input.sales[i] ?? 0) * volume;
      if (v > value + 1e-12) {
        value = v;
        best = i;
      }
    });
    return best;
  };
  const counts = new Map<number, number>();
  for (let d = 0; d < input.volumes.length; d++)
    counts.set(input.volumes[d] ?? 0, (counts.get(input.volumes[d] ?? 0) ?? 0) + 1);
  const salesAt = (bid: number) => {
    let total = 0;
    for (const [volume, days] of counts) total += (input.sales[bestAt(bid, volume)] ?? 0) * volume * days;
    return total;
  };
  const today = input.volumes[0] ?? 1;
  const unbound = bestAt(0, today);
  if (salesAt(0) <= input.stock) return { index: unbound, lowerBidIndex: unbound, lowerBidWeight: 0, bid: 0 };
  let lo = 0;
  let hi = Math.max(...input.prices) - input.unitCost + 1;
  for (let k = 0; k < 40; k++) {
    const mid = (lo + hi) / 2;
    if (salesAt(mid) <= input.stock) hi = mid;
    else lo = mid;
  }
  const sHi = salesAt(hi);
  const sLo = salesAt(lo);
  const weight = sLo > sHi ? Math.min(1, Math.max(0, (input.stock - sHi) / (sLo - sHi))) : 0;
  return { index: bestAt(hi, today), lowerBidIndex: bestAt(lo, today), lowerBidWeight: weight, bid: hi };
}
