/**
 * Tokens already verified, by their exact string, until they expire. A partner sends the same token on every call
 * for its lifetime, and re-checking its HMAC each time was the largest cost of a cached read; any other string (a
 * tampered or re-signed token) misses and is verified in full. Bounded: least recently used out first.
 */
export function createVerifiedTokenCache<T extends { expiresAt: number }>(maxEntries = 10_000) {
  const entries = new Map<string, T>();
  return {
    /** The entry while `nowSeconds` is before its `exp`, as jose decides expiry; undefined otherwise. */
    get(token: string, nowSeconds: number): T | undefined {
      const hit = entries.get(token);
      if (hit === undefined) return undefined;
      entries.delete(token);
      if (hit.expiresAt <= nowSeconds) return undefined;
      entries.set(token, hit);
      return hit;
    },
    set(token: string, verified: T, nowSeconds: number): void {
      if (verified.expiresAt <= nowSeconds) return;
      entries.delete(token);
      entries.set(token, verified);
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
    },
    get size(): number {
      return entries.size;
    },
  };
}
