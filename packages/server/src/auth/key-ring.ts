import { createHash } from "node:crypto";

/** One of the server's own secrets, named by an id that reveals nothing of it. */
export interface RingKey {
  id: string;
  value: string;
}

/**
 * Several generations of one server secret, so that it can be rotated without invalidating what the old one made:
 * the first key is current (signs, hashes new keys); every key still verifies what it made, found by its id.
 */
export interface KeyRing {
  current: RingKey;
  byId(id: string | null | undefined): RingKey | undefined;
}

/** `purpose` keeps the ids of two rings apart should an operator reuse a value (`kid` for the JWT keys). */
export function keyRing(purpose: string, values: readonly string[]): KeyRing {
  const keys = values.map((value) => ({
    id: createHash("sha256").update(`${purpose}:${value}`).digest("base64url").slice(0, 16),
    value,
  }));
  const [current] = keys;
  if (current === undefined) throw new Error(`the ${purpose} key ring needs at least one key`);
  return { current, byId: (id) => keys.find((key) => key.id === id) };
}
