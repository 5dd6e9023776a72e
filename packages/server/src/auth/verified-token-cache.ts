import { SecondChanceMap } from "../second-chance-map.js";

/**
 * Tokens already verified, by their exact string, until they expire. A partner sends the same token on every call
 * for its lifetime, and re-checking its HMAC each time was the largest cost of a cached read; any other string (a
 * tampered or re-signed token) misses and is verified in full. Bounded: the least recently used out first, as the
 * CLOCK rule approximates it (`SecondChanceMap`).
 */
export function createVerifiedTokenCache<T extends { expiresAt: number }>(maxEntries = 10_000) {
  const entries = new SecondChanceMap<string, T>();
  return {
    /** The entry while `nowSeconds` is before its `exp`, as jose decides expiry; undefined otherwise. */
    get(token: string, nowSeconds: number): T | undefined {
      const hit = entries.get(token);
      if (hit === undefined || hit.expiresAt > nowSeconds) return hit;
      entries.delete(token);
      return undefined;
    },
    set(token: string, verified: T, nowSeconds: number): void {
      if (verified.expiresAt <= nowSeconds) return;
      entries.set(token, verified);
      if (entries.size > maxEntries) entries.evict();
    },
    get size(): number {
      return entries.size;
    },
  };
}
