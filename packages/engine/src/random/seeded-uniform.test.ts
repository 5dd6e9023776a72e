import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { seededUniform } from "./seeded-uniform.js";

describe("seededUniform", () => {
  it("gives seedrandom's numbers for the same seed", () => {
    const seeds = [
      "",
      "a",
      "bench:p-001:2026-03-02",
      "bench:p-001:2026-03-02:units",
      "x".repeat(300),
      "é∑ seed",
    ];
    for (let k = 0; k < 200; k++) seeds.push(`${k}:${(k * 7919) % 1000}:guard-draws`);
    for (const seed of seeds) {
      const ours = seededUniform(seed);
      const theirs = seedrandom(seed);
      expect(Array.from({ length: 2000 }, ours), seed).toEqual(Array.from({ length: 2000 }, () => theirs()));
    }
  });
});
