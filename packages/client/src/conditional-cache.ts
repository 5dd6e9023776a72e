/** A stored answer of a conditional read: its ETag and body text. */
export interface CachedRead {
  etag: string;
  body: string;
}

/**
 * The last answer of each read URL that carried an ETag, the least recently used dropped first. Bodies are kept
 * as text and parsed on each hit, so a caller that changes what it got back changes nothing here.
 */
export class ConditionalCache {
  readonly #entries = new Map<string, CachedRead>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(url: string): CachedRead | undefined {
    const entry = this.#entries.get(url);
    if (entry === undefined) return undefined;
    this.#entries.delete(url);
    this.#entries.set(url, entry);
    return entry;
  }

  set(url: string, entry: CachedRead): void {
    if (this.#capacity <= 0) return;
    this.#entries.delete(url);
    this.#entries.set(url, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#capacity) break;
      this.#entries.delete(oldest);
    }
  }
}
