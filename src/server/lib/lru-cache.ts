/** A map that keeps at most `capacity` entries, dropping the least recently read or written. */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting makes this the most recent.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value, without touching its recency. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** The entries, least recent first, without touching their recency. */
  entries(): IterableIterator<[K, V]> {
    return this.#entries.entries();
  }

  /** Drops every entry `drop` says so of. */
  deleteWhere(drop: (value: V, key: K) => boolean): void {
    for (const [key, value] of [...this.#entries]) if (drop(value, key)) this.#entries.delete(key);
  }
}
