import { createHash } from "node:crypto";
import {
  assertValidKey,
  type ObjectStore,
  PreconditionFailedError,
  type PutCondition,
} from "./object-store.js";

/**
 * An {@link ObjectStore} in process memory with the same semantics as the folder one; for tests and
 * offline experiments that need no persistence. Single-process only.
 */
export class MemoryObjectStore implements ObjectStore {
  private readonly objects = new Map<string, { body: Uint8Array; etag: string }>();

  async get(key: string): Promise<{ body: Uint8Array; etag: string } | null> {
    assertValidKey(key);
    const found = this.objects.get(key);
    return found === undefined ? null : { body: found.body.slice(), etag: found.etag };
  }

  async put(key: string, body: Uint8Array, condition?: PutCondition): Promise<{ etag: string }> {
    assertValidKey(key);
    const current = this.objects.get(key);
    if (condition !== undefined) {
      if ("ifAbsent" in condition) {
        if (current !== undefined) throw new PreconditionFailedError(key, "ifAbsent");
      } else if (current?.etag !== condition.ifMatch) {
        throw new PreconditionFailedError(key, "ifMatch");
      }
    }
    const etag = createHash("sha256").update(body).digest("hex");
    this.objects.set(key, { body: body.slice(), etag });
    return { etag };
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async delete(key: string, condition?: { readonly ifMatch: string }): Promise<boolean> {
    assertValidKey(key);
    const current = this.objects.get(key);
    if (condition !== undefined && current?.etag !== condition.ifMatch) {
      throw new PreconditionFailedError(key, "ifMatch");
    }
    return this.objects.delete(key);
  }
}
