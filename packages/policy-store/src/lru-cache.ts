/** Values built once per key, the least recently used dropped (and disposed) beyond `max`. */
export interface LruCache<T> {
  /** The value of `key`, built by `build` on a miss; a build that fails is not kept, so the next call retries. */
  get(key: string, build: () => Promise<T>): Promise<T>;
  /** Drops and disposes every value. */
  clear(): void;
}

export function createLruCache<T>(options: { max: number; dispose?: (value: T) => void }): LruCache<T> {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const entries = new Map<string, Promise<T>>();
  const dispose = (entry: Promise<T>) => {
    const hook = options.dispose;
    if (hook !== undefined) void entry.then(hook).catch(() => undefined);
  };
  return {
    get(key, build) {
      let entry = entries.get(key);
      if (entry !== undefined) {
        entries.delete(key);
        entries.set(key, entry);
        return entry;
      }
      const created = build();
      entry = created;
      entries.set(key, created);
      created.catch(() => {
        if (entries.get(key) === created) entries.delete(key);
      });
      for (const [oldest, value] of entries) {
        if (entries.size <= options.max) break;
        entries.delete(oldest);
        dispose(value);
      }
      return created;
    },
    clear() {
      for (const entry of entries.values()) dispose(entry);
      entries.clear();
    },
  };
}
