import { describe, expect, it } from "vitest";
import { createTokenSigner } from "./token-signer.js";

function signer(nowMs: { value: number }, overrides: { secret?: string; audience?: string } = {}) {
  return createTokenSigner({
    secret: overrides.secret ?? "s".repeat(43),
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
    expect(await code(signer(now, { secret: "t".repeat(43) }).verify(token))).toBe("invalid_token");
    expect(await code(signer(now, { audience: "other" }).verify(token))).toBe("invalid_token");
    expect(await code(signer(now).verify(`${token}x`))).toBe("invalid_token");
  });
});
