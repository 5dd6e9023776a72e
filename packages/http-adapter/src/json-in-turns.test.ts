import { describe, expect, it } from "vitest";
import { jsonInTurns } from "./json-in-turns.js";

const item = (i: number) => ({
  product_id: `sku-${i}`,
  date: "2026-01-05",
  price: 9.99 + i / 100,
  note: i % 7 === 0 ? undefined : 'a "quoted" ünïcode text',
  explanation: i % 3 === 0 ? null : { binding: "min_price", range: [1, 2] },
});

describe("jsonInTurns", () => {
  it("writes what JSON.stringify writes, field order and undefined fields included", async () => {
    const value = {
      company_id: "c1",
      skipped: undefined,
      recommendations: [0, 1, 2, 3].map(item),
      run: null,
    };
    expect(await jsonInTurns(value, "recommendations")).toBe(JSON.stringify(value));
    const empty = { recommendations: [] as unknown[], persisted: false };
    expect(await jsonInTurns(empty, "recommendations")).toBe(JSON.stringify(empty));
  });

  it("gives the event loop back while it serializes a long array", async () => {
    const value = { company_id: "c1", recommendations: Array.from({ length: 60_000 }, (_, i) => item(i)) };
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    try {
      const json = await jsonInTurns(value, "recommendations");
      expect(json).toBe(JSON.stringify(value));
    } finally {
      clearInterval(timer);
    }
    // A timer ran between turns: the serialization did not hold the loop from start to end.
    expect(turns).toBeGreaterThan(3);
  });

  it("passes each item through the given check, which may refuse it", async () => {
    const value = { items: [1, 2, 3] };
    expect(await jsonInTurns(value, "items", (n) => (n as number) * 2)).toBe('{"items":[2,4,6]}');
    const refuse = (n: unknown) => {
      if (n === 2) throw new Error("not a valid item");
      return n;
    };
    await expect(jsonInTurns(value, "items", refuse)).rejects.toThrow("not a valid item");
  });
});
