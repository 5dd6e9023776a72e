import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Minimum length of a configured secret, so an HS256 key carries at least 256 bits. */
export const MIN_SECRET_LENGTH = 32;

/**
 * A server secret: the configured value, or one generated once into `dataDir/<name>` with mode 0600. Created with
 * the exclusive flag so two processes starting together agree on the same value.
 */
export function loadOrCreateSecret(dataDir: string, name: string, configured: string | undefined): string {
  if (configured !== undefined && configured.length > 0) {
    if (configured.length < MIN_SECRET_LENGTH) {
      throw new Error(`the configured ${name} must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    return configured;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, name);
  try {
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const value = readFileSync(file, "utf8").trim();
  if (value.length < MIN_SECRET_LENGTH)
    throw new Error(`the secret file ${name} in the data directory is too short`);
  return value;
}
