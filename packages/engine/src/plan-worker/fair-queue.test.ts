import { describe, expect, it } from "vitest";
import { createFairQueue } from "./fair-queue.js";

function takeAll(queue: ReturnType<typeof createFairQueue<string>>): string[] {
  const out: string[] = [];
  for (let item = queue.take(); item !== undefined; item = queue.take()) out.push(item);
  return out;
}

describe("the fair queue", () => {
  it("alternates between queues and keeps each queue's order", () => {
    const q = createFairQueue<string>();
    for (const item of ["a1", "a2", "a3", "a4"]) q.add("a", item);
    q.add("b", "b1");
    q.add("b", "b2");
    q.add("c", "c1");
    expect(q.size()).toBe(7);
    expect(takeAll(q)).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
    expect(q.size()).toBe(0);
  });

  it("puts a queue just served behind one that waits, even when it emptied and filled again", () => {
    const q = createFairQueue<string>();
    q.add("a", "a1");
    expect(q.take()).toBe("a1");
    q.add("a", "a2");
    q.add("a", "a3");
    q.add("b", "b1");
    expect(takeAll(q)).toEqual(["b1", "a2", "a3"]);
  });

  it("removes a waiting item and drains the rest", () => {
    const q = createFairQueue<string>();
    q.add("a", "a1");
    q.add("b", "b1");
    q.add("b", "b2");
    expect(q.remove("b", "b1")).toBe(true);
    expect(q.remove("b", "b1")).toBe(false);
    expect(q.remove("z", "a1")).toBe(false);
    expect(q.size()).toBe(2);
    expect(q.drain().sort()).toEqual(["a1", "b2"]);
    expect(q.size()).toBe(0);
    expect(q.take()).toBeUndefined();
  });
});
