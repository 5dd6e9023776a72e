import type { TaggedJson } from "@pricing/http-adapter";
import { SecondChanceMap } from "../second-chance-map.js";

/** The bytes an entry holds: its identity bytes and each of its codings. */
function sizeOf(body: TaggedJson): number {
  let size = body.bytes.byteLength;
  for (const coded of Object.values(body.coded ?? {})) size += coded.bytes.byteLength;
  return size;
}

/**
 * Serialized responses of persisted runs with their ETags and codings, bounded by total bytes, least recently used
 * out first (as `SecondChanceMap` approximates it). Runs are immutable, so an entry never goes stale: a run deleted
 * by retention is simply never asked for again.
 */
export function createResponseCache(maxBytes = 64 * 1024 * 1024) {
  const entries = new SecondChanceMap<string, TaggedJson>();
  /** Entries being made: the partners reading a new run at once wait for one serialization and compression. */
  const making = new Map<string, Promise<TaggedJson>>();
  let bytes = 0;

  function get(key: string): TaggedJson | undefined {
    return entries.get(key);
  }

  function set(key: string, body: TaggedJson): void {
    const size = sizeOf(body);
    if (size > maxBytes) return;
    const old = entries.get(key);
    if (old) bytes -= sizeOf(old);
    entries.set(key, body);
    bytes += size;
    while (bytes > maxBytes) {
      const dropped = entries.evict();
      if (dropped === undefined) break;
      bytes -= sizeOf(dropped[1]);
    }
  }

  return {
    get,
    set,
    /**
     * The entry of `key`, made by `make` and kept on a miss; concurrent misses of one key share one `make`. A
     * failed `make` keeps nothing, so the next read tries again.
     */
    async getOrMake(key: string, make: () => Promise<TaggedJson>): Promise<TaggedJson> {
      const hit = get(key);
      if (hit !== undefined) return hit;
      let pending = making.get(key);
      if (pending === undefined) {
        pending = make().then(
          (body) => {
            making.delete(key);
            set(key, body);
            return body;
          },
          (error: unknown) => {
            making.delete(key);
            throw error;
          },
        );
        making.set(key, pending);
      }
      return pending;
    },
    get size(): number {
      return entries.size;
    },
    /** Bytes held, codings included. */
    get bytes(): number {
      return bytes;
    },
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
