import { describe, expect, it } from "vitest";
import { packedFilter, packedMap } from "./packed-map.js";

describe("packedMap / packedFilter", () => {
  it("give what map and filter give, indices included", () => {
    const items = [3, 1.5, -2, 0, 7];
    expect(packedMap(items, (x, i) => x * 2 + i)).toEqual(items.map((x, i) => x * 2 + i));
    expect(packedFilter(items, (x, i) => x > 0 && i !== 4)).toEqual(items.filter((x, i) => x > 0 && i !== 4));
    expect(packedMap([], (x: number) => x)).toEqual([]);
  });
});
