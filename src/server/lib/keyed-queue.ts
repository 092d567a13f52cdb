/** First-in first-out queues by key; a key's queue exists only while it holds something. */
export class KeyedQueue<K, T> {
  readonly #queues = new Map<K, T[]>();

  push(key: K, item: T): void {
    const queue = this.#queues.get(key);
    if (queue) queue.push(item);
    else this.#queues.set(key, [item]);
  }

  /** The oldest item of the key's queue, taken out of it. */
  shift(key: K): T | undefined {
    const queue = this.#queues.get(key);
    const item = queue?.shift();
    if (queue?.length === 0) this.#queues.delete(key);
    return item;
  }

  /** Takes `item` out of the key's queue, wherever it stands. */
  remove(key: K, item: T): void {
    const queue = this.#queues.get(key);
    const index = queue?.indexOf(item) ?? -1;
    if (!queue || index === -1) return;
    queue.splice(index, 1);
    if (queue.length === 0) this.#queues.delete(key);
  }

  clear(): void {
    this.#queues.clear();
  }
}
