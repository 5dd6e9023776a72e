import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { KeyRing } from "./key-ring.js";

export interface IssuedCredentials {
  access_key: string;
  /** Shown once to the operator; only its hash is stored. */
  secret_key: string;
  secret_hash: string;
  /** Id of the pepper that made `secret_hash`, stored beside it so that a new pepper leaves it valid. */
  pepper_id: string;
}

/**
 * Secret keys are 256 random bits, so a keyed hash is enough (no slow KDF needed); the pepper keeps a stolen
 * database from being checkable offline without the server's secret.
 */
export function hashSecret(secretKey: string, pepper: string): string {
  return createHmac("sha256", pepper).update(secretKey, "utf8").digest("hex");
}

/** A new key pair, hashed under the current pepper. */
export function issueCredentials(peppers: KeyRing): IssuedCredentials {
  const access_key = `ak_${randomBytes(12).toString("hex")}`;
  const secret_key = `sk_${randomBytes(32).toString("base64url")}`;
  const pepper = peppers.current;
  return { access_key, secret_key, secret_hash: hashSecret(secret_key, pepper.value), pepper_id: pepper.id };
}

const DUMMY_HASH = "0".repeat(64);

/** Constant-time check; with no stored hash it still does the same work so unknown keys take as long. */
export function secretMatches(secretKey: string, storedHash: string | undefined, pepper: string): boolean {
  const actual = Buffer.from(hashSecret(secretKey, pepper), "hex");
  const expected = Buffer.from(storedHash ?? DUMMY_HASH, "hex");
  if (expected.length !== actual.length) return false;
  return timingSafeEqual(actual, expected) && storedHash !== undefined;
}
