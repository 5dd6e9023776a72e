import { type TaggedJson, taggedJson } from "@pricing/http-adapter";
import { describe, expect, it } from "vitest";
import { createResponseCache } from "./response-cache.js";

const json = (text: string) => taggedJson(Buffer.from(text));

describe("response cache", () => {
  it("concurrent misses of one key share one make; the entry is kept for the next read", async () => {
    const cache = createResponseCache();
    let makes = 0;
    let release: (body: TaggedJson) => void = () => {};
    const make = () => {
      makes++;
      return new Promise<TaggedJson>((resolve) => {
        release = resolve;
      });
    };
    const reads = [cache.getOrMake("run|a", make), cache.getOrMake("run|a", make)];
    const body = await json(JSON.stringify({ items: "x".repeat(4096) }));
    release(body);
    expect(await Promise.all(reads)).toEqual([body, body]);
    expect(makes).toBe(1);
    expect(await cache.getOrMake("run|a", make)).toBe(body);
    expect(makes).toBe(1);
  });

  it("keeps nothing of a failed make: the next read makes it again", async () => {
    const cache = createResponseCache();
    await expect(cache.getOrMake("k", () => Promise.reject(new Error("database busy")))).rejects.toThrow(
      "database busy",
    );
    const body = await json('{"ok":true}');
    expect(await cache.getOrMake("k", async () => body)).toBe(body);
    expect(cache.size).toBe(1);
  });

  it("counts each entry's codings in its bound, and drops the least recently used to stay under it", async () => {
    const big = await json(
      JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => ({ i, p: i / 7 })) }),
    );
    const coded = (big.coded?.gzip?.bytes.byteLength ?? 0) + (big.coded?.br?.bytes.byteLength ?? 0);
    expect(coded).toBeGreaterThan(0);
    const entry = big.bytes.byteLength + coded;
    const cache = createResponseCache(2 * entry);
    cache.set("a", big);
    cache.set("b", big);
    expect(cache.bytes).toBe(2 * entry);
    cache.get("a");
    cache.set("c", big);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(big);
    expect(cache.bytes).toBe(2 * entry);
  });
});
