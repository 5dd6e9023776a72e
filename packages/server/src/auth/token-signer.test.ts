import { describe, expect, it } from "vitest";
import { keyRing } from "./key-ring.js";
import { createTokenSigner } from "./token-signer.js";

function signer(nowMs: { value: number }, overrides: { secrets?: string[]; audience?: string } = {}) {
  return createTokenSigner({
    keys: keyRing("kid", overrides.secrets ?? ["s".repeat(43)]),
    issuer: "pricing-api",
    audience: overrides.audience ?? "pricing-partners",
    clock: () => new Date(nowMs.value),
  });
}

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? "other";
  }
}

describe("token signer", () => {
  it("accepts its own token until exactly 900 s after issue, then says token_expired", async () => {
    const now = { value: Date.parse("2026-01-01T00:00:00Z") };
    const s = signer(now);
    const token = await s.mint("ptr_1", 0);
    expect((await s.verify(token)).partnerId).toBe("ptr_1");
    now.value += 899_999;
    expect(await code(s.verify(token))).toBe("ok");
    now.value += 1;
    expect(await code(s.verify(token))).toBe("token_expired");
  });

  it("gives each token its own jti and names the key in kid", async () => {
    const s = signer({ value: Date.now() });
    const [a, b] = [await s.mint("ptr_1", 0), await s.mint("ptr_1", 0)];
    expect((await s.verify(a)).tokenId).not.toBe((await s.verify(b)).tokenId);
    const header = JSON.parse(Buffer.from(a.split(".")[0] ?? "", "base64url").toString());
    expect(header).toEqual({ alg: "HS256", typ: "JWT", kid: s.kid });
    expect(s.kid).not.toContain("sss");
  });

  it("refuses tokens of another key or audience as invalid_token", async () => {
    const now = { value: Date.now() };
    const token = await signer(now).mint("ptr_1", 0);
    expect(await code(signer(now, { secrets: ["t".repeat(43)] }).verify(token))).toBe("invalid_token");
    expect(await code(signer(now, { audience: "other" }).verify(token))).toBe("invalid_token");
    expect(await code(signer(now).verify(`${token}x`))).toBe("invalid_token");
  });

  it("signs with the first key and verifies with every listed one, chosen by kid: a rotation keeps tokens valid", async () => {
    const now = { value: Date.parse("2026-01-01T00:00:00Z") };
    const [oldKey, newKey] = ["o".repeat(43), "n".repeat(43)];
    const before = signer(now, { secrets: [oldKey] });
    const during = signer(now, { secrets: [newKey, oldKey] });
    const after = signer(now, { secrets: [newKey] });
    const oldToken = await before.mint("ptr_1", 0);
    const newToken = await during.mint("ptr_1", 0);
    const kidOf = (t: string) => JSON.parse(Buffer.from(t.split(".")[0] ?? "", "base64url").toString()).kid;
    expect(kidOf(oldToken)).toBe(before.kid);
    expect(kidOf(newToken)).toBe(after.kid);
    expect(before.kid).not.toBe(after.kid);
    expect(await code(during.verify(oldToken))).toBe("ok");
    expect(await code(during.verify(newToken))).toBe("ok");
    expect(await code(after.verify(newToken))).toBe("ok");
    expect(await code(after.verify(oldToken))).toBe("invalid_token");
    expect(await code(before.verify(newToken))).toBe("invalid_token");
  });
});
