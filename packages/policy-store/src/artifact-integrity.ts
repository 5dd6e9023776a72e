import { createHash } from "node:crypto";
import { PolicyStoreError } from "./errors.js";
import { type Manifest, ManifestSchema } from "./schemas.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Lowercase hex sha256 of the bytes: what a record pins for its manifest and weights. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Returns `bytes` if they have exactly the recorded size and sha256; else throws `artifact_unreadable`. */
export function verified(bytes: Uint8Array | null, sha: string, size: number, what: string): Uint8Array {
  if (bytes === null) throw new PolicyStoreError("artifact_unreadable", `${what} is missing`);
  if (bytes.byteLength !== size || sha256(bytes) !== sha) {
    throw new PolicyStoreError("artifact_unreadable", `${what} fails its size or sha256 check`);
  }
  return bytes;
}

/** The manifest as stored: JSON text of an object. Throws `invalid_input` for anything else. */
export function manifestBytes(manifest: unknown): Uint8Array {
  let text: string | undefined;
  try {
    text = JSON.stringify(manifest);
  } catch {
    text = undefined;
  }
  const parsed = text === undefined ? undefined : ManifestSchema.safeParse(JSON.parse(text));
  if (text === undefined || parsed === undefined || !parsed.success || Array.isArray(manifest)) {
    throw new PolicyStoreError("invalid_input", "manifest must be a JSON object");
  }
  return encoder.encode(text);
}

/** Parses verified manifest bytes; throws `artifact_unreadable` when they are not a JSON object. */
export function parseManifest(bytes: Uint8Array, modelId: string): Manifest {
  try {
    return ManifestSchema.parse(JSON.parse(decoder.decode(bytes)));
  } catch {
    throw new PolicyStoreError("artifact_unreadable", `manifest of model ${modelId} does not parse`);
  }
}
