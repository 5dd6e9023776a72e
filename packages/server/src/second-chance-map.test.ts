import { describe, expect, it } from "vitest";
import { SecondChanceMap } from "./second-chance-map.js";

describe("SecondChanceMap", () => {
  it("evicts the oldest entry not read since it was last passed over, and read entries only after that", () => {
    const map = new SecondChanceMap<string, number>();
    for (const [i, key] of ["a", "b", "c"].entries()) map.set(key, i);
    expect(map.get("a")).toBe(0);
    expect(map.evict()).toEqual(["b", 1]);
    expect(map.evict()).toEqual(["c", 2]);
    expect(map.evict()).toEqual(["a", 0]);
    expect(map.evict()).toBeUndefined();
  });

  it("gives every entry a second chance when all were read, then evicts the oldest", () => {
    const map = new SecondChanceMap<string, number>();
    map.set("a", 1);
    map.set("b", 2);
    map.get("a");
    map.get("b");
    expect(map.evict()).toEqual(["a", 1]);
    expect(map.size).toBe(1);
  });

  it("treats a replaced entry as new and unread", () => {
    const map = new SecondChanceMap<string, number>();
    map.set("a", 1);
    map.set("b", 2);
    map.get("a");
    map.set("a", 3);
    expect(map.evict()).toEqual(["b", 2]);
    expect(map.get("a")).toBe(3);
    expect(map.delete("a")).toBe(true);
    expect(map.size).toBe(0);
  });
});
