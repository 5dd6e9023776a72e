/**
 * A map whose eviction approximates least-recently-used with the CLOCK rule: a read only marks its entry used, and
 * eviction walks from the oldest entry, giving each used one a second chance (unmarked, moved to the newest end)
 * and taking the first unused one. An exact LRU moves the entry on every read (a delete and an insert of the map),
 * which was a measurable part of a cached read: the bearer check and the run's bytes are looked up on every request.
 */
export class SecondChanceMap<K, V> {
  readonly #entries = new Map<K, { value: V; used: boolean }>();

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** Inserts or replaces `key` as the newest entry; the caller evicts with `evict` to stay within its bound. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, used: false });
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Removes and returns the entry to drop next; undefined when the map is empty. */
  evict(): [K, V] | undefined {
    for (;;) {
      const oldest = this.#entries.entries().next();
      if (oldest.done) return undefined;
      const [key, entry] = oldest.value;
      this.#entries.delete(key);
      if (!entry.used) return [key, entry.value];
      entry.used = false;
      this.#entries.set(key, entry);
    }
  }
}
