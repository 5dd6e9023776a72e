/**
 * A minimal object store: the only thing the policy store needs from its storage.
 *
 * Keys are `/`-separated paths of segments made of `[A-Za-z0-9._~-]`, never starting with `.`
 * (hidden names are reserved for an implementation's temporary and lock files).
 * The contract is the intersection of a local folder and S3 with conditional writes
 * (`If-None-Match: *` for `ifAbsent`, `If-Match: <etag>` for `ifMatch`), so an S3-compatible
 * implementation can replace the folder without changing any caller.
 */

/** An object's bytes and its opaque version tag. */
export interface StoredObject {
  readonly body: Uint8Array;
  /** Opaque; changes whenever the content changes. Only ever compared for equality. */
  readonly etag: string;
}

/** Write only if no object exists under the key, or only if the stored object still has this etag. */
export type PutCondition = { readonly ifAbsent: true } | { readonly ifMatch: string };

export interface ObjectStore {
  /** The object, or null when absent. A reader sees either the old or the new content, never a mix. */
  get(key: string): Promise<StoredObject | null>;
  /**
   * Stores `body` under `key` atomically and durably. With a condition, the check and the write are
   * one atomic step across processes; a failed check throws {@link PreconditionFailedError} and writes nothing.
   */
  put(key: string, body: Uint8Array, condition?: PutCondition): Promise<{ etag: string }>;
  /** Every key starting with `prefix`, sorted ascending. */
  list(prefix: string): Promise<string[]>;
  /** Removes the object; false when it was already absent. With `ifMatch`, only if the etag still matches. */
  delete(key: string, condition?: { readonly ifMatch: string }): Promise<boolean>;
  /**
   * Optional, for stores that keep lock files of their own (the folder): removes the locks whose holder is dead
   * or stale, and returns them (as paths relative to the store); with `dryRun`, only lists them.
   */
  sweepStaleLocks?(options: { dryRun: boolean }): Promise<string[]>;
}

/** A conditional put or delete whose condition did not hold. Nothing was written. */
export class PreconditionFailedError extends Error {
  readonly code = "precondition_failed";
  constructor(
    readonly key: string,
    readonly condition: "ifAbsent" | "ifMatch",
  ) {
    super(`precondition ${condition} failed for ${key}`);
    this.name = "PreconditionFailedError";
  }
}

const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

/** Throws unless `key` is a valid object key (see {@link ObjectStore}). */
export function assertValidKey(key: string): void {
  const segments = key.split("/");
  if (key.length === 0 || key.length > 1024 || !segments.every((s) => SEGMENT.test(s))) {
    throw new TypeError(`invalid object key: ${JSON.stringify(key)}`);
  }
}
