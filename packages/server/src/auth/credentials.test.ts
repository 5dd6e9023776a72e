import { describe, expect, it } from "vitest";
import { hashSecret, issueCredentials, secretMatches } from "./credentials.js";

const PEPPER = "pepper-of-at-least-thirty-two-characters!";

describe("credentials", () => {
  it("issues a 256-bit secret and stores only its keyed hash", () => {
    const issued = issueCredentials(PEPPER);
    expect(issued.access_key).toMatch(/^ak_[0-9a-f]{24}$/);
    expect(Buffer.from(issued.secret_key.slice(3), "base64url")).toHaveLength(32);
    expect(issued.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.secret_hash).not.toContain(issued.secret_key.slice(3));
    expect(issued.secret_hash).toBe(hashSecret(issued.secret_key, PEPPER));
    expect(hashSecret(issued.secret_key, `${PEPPER}x`)).not.toBe(issued.secret_hash);
  });

  it("matches only the right secret, and never without a stored hash", () => {
    const issued = issueCredentials(PEPPER);
    expect(secretMatches(issued.secret_key, issued.secret_hash, PEPPER)).toBe(true);
    expect(secretMatches(`${issued.secret_key}x`, issued.secret_hash, PEPPER)).toBe(false);
    expect(secretMatches(issued.secret_key, undefined, PEPPER)).toBe(false);
    expect(secretMatches(issued.secret_key, "abc", PEPPER)).toBe(false);
  });

  it("never issues the same pair twice", () => {
    const keys = new Set(Array.from({ length: 200 }, () => issueCredentials(PEPPER).secret_key));
    expect(keys.size).toBe(200);
  });
});
