import { describe, expect, it } from "vitest";
import { keyRing } from "./key-ring.js";
import { createTokenSigner } from "./token-signer.js";
import { createVerifiedTokenCache } from "./verified-token-cache.js";

describe("verified token cache", () => {
  it("forgets an entry at its exp and keeps at most maxEntries, least recently used out first", () => {
    const cache = createVerifiedTokenCache<{ expiresAt: number; id: string }>(2);
    cache.set("a", { expiresAt: 100, id: "a" }, 10);
    cache.set("b", { expiresAt: 100, id: "b" }, 10);
    expect(cache.get("a", 10)?.id).toBe("a"); // a is now the most recent
    cache.set("c", { expiresAt: 100, id: "c" }, 10);
    expect(cache.size).toBe(2);
    expect(cache.get("b", 10)).toBeUndefined();
    expect(cache.get("a", 99)?.id).toBe("a");
    expect(cache.get("a", 100)).toBeUndefined();
    expect(cache.size).toBe(1);
    cache.set("late", { expiresAt: 100, id: "late" }, 100);
    expect(cache.get("late", 50)).toBeUndefined();
  });

  it("never answers for a token that differs from the verified one", async () => {
    const now = { value: Date.parse("2026-01-01T00:00:00Z") };
    const signer = createTokenSigner({
      keys: keyRing("kid", ["s".repeat(43)]),
      issuer: "pricing-api",
      audience: "pricing-partners",
      clock: () => new Date(now.value),
    });
    const token = await signer.mint("ptr_1", 0);
    expect((await signer.verify(token)).partnerId).toBe("ptr_1");
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: "ptr_2" })).toString("base64url")}.${signature}`;
    await expect(signer.verify(forged)).rejects.toMatchObject({ code: "invalid_token" });
    await expect(signer.verify(`${token}x`)).rejects.toMatchObject({ code: "invalid_token" });
    expect((await signer.verify(token)).partnerId).toBe("ptr_1");
  });
});
