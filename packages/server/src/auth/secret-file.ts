import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makePrivateDirs, PRIVATE_FILE_MODE } from "../db/private-files.js";

/** Minimum length of a configured secret, so an HS256 key carries at least 256 bits. */
export const MIN_SECRET_LENGTH = 32;

/** Comma- or newline-separated values, blanks dropped. */
function listOf(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * The keys a server started on `dataDir` would use, without creating any: the configured list, else the keys of
 * `dataDir/<name>`, else none (a restore checks these before it makes the data dir serve).
 */
export function readSecrets(dataDir: string, name: string, configured: string | undefined): string[] {
  if (configured !== undefined && configured.trim().length > 0) return listOf(configured);
  try {
    return listOf(readFileSync(join(dataDir, name), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * A server secret as its list of keys, the first current: the configured list (comma-separated), or the keys of
 * `dataDir/<name>` (one a line), generated once with one key, mode 0600. Created with the exclusive flag so two
 * processes starting together agree on the same value. An operator rotates by adding a line above the others.
 */
export function loadOrCreateSecrets(dataDir: string, name: string, configured: string | undefined): string[] {
  if (configured !== undefined && configured.trim().length > 0) {
    const keys = listOf(configured);
    if (keys.some((key) => key.length < MIN_SECRET_LENGTH)) {
      throw new Error(`each configured ${name} key must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    return keys;
  }
  makePrivateDirs(dataDir);
  const file = join(dataDir, name);
  try {
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: PRIVATE_FILE_MODE, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, PRIVATE_FILE_MODE);
  const keys = listOf(readFileSync(file, "utf8"));
  if (keys.length === 0 || keys.some((key) => key.length < MIN_SECRET_LENGTH))
    throw new Error(`the secret file ${name} in the data directory holds a key that is too short`);
  return keys;
}
