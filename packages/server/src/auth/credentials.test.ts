import { describe, expect, it } from "vitest";
import { hashSecret, issueCredentials, secretMatches } from "./credentials.js";
import { keyRing } from "./key-ring.js";

const PEPPER = "pepper-of-at-least-thirty-two-characters!";
const PEPPERS = keyRing("pepper", [PEPPER]);

describe("credentials", () => {
  it("issues a 256-bit secret and stores only its keyed hash", () => {
    const issued = issueCredentials(PEPPERS);
    expect(issued.access_key).toMatch(/^ak_[0-9a-f]{24}$/);
    expect(Buffer.from(issued.secret_key.slice(3), "base64url")).toHaveLength(32);
    expect(issued.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.secret_hash).not.toContain(issued.secret_key.slice(3));
    expect(issued.secret_hash).toBe(hashSecret(issued.secret_key, PEPPER));
    expect(hashSecret(issued.secret_key, `${PEPPER}x`)).not.toBe(issued.secret_hash);
    expect(issued.pepper_id).toBe(PEPPERS.current.id);
    expect(issued.pepper_id).not.toContain(PEPPER.slice(0, 8));
  });

  it("matches only the right secret, and never without a stored hash", () => {
    const issued = issueCredentials(PEPPERS);
    expect(secretMatches(issued.secret_key, issued.secret_hash, PEPPER)).toBe(true);
    expect(secretMatches(`${issued.secret_key}x`, issued.secret_hash, PEPPER)).toBe(false);
    expect(secretMatches(issued.secret_key, undefined, PEPPER)).toBe(false);
    expect(secretMatches(issued.secret_key, "abc", PEPPER)).toBe(false);
  });

  it("never issues the same pair twice", () => {
    const keys = new Set(Array.from({ length: 200 }, () => issueCredentials(PEPPERS).secret_key));
    expect(keys.size).toBe(200);
  });
});
