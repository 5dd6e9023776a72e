import { createPolicyStore, type PolicyStore } from "../policy-store.js";
import { makeTempDir } from "./temp-dir.js";

/** A clock that advances one second per reading, so timestamps are distinct and predictable. */
export function steppingClock(start = Date.parse("2026-01-01T00:00:00Z")): () => Date {
  let now = start;
  return () => {
    now += 1000;
    return new Date(now);
  };
}

/** Weights bytes derived from a label, so each artifact's content is distinct. */
export function weightsFor(label: string, size = 64): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i += 1) out[i] = (label.charCodeAt(i % label.length) + i) % 256;
  return out;
}

export function openTempStore(
  label: string,
  clock?: () => Date,
): { store: PolicyStore; dir: string; remove: () => void } {
  const temp = makeTempDir(label);
  return { store: createPolicyStore({ root: temp.dir, clock }), ...temp };
}
