/**
 * Reads of one key asked for in the same turn of the event loop share one read.
 *
 * The read starts in the turn's check phase (`setImmediate`), after every request that the
 * turn's I/O callbacks parsed has asked, so it starts after each of its callers asked: a
 * caller never receives a value read before it called — what it would have got from a read of
 * its own, only fewer of them. A caller in a later turn waits for a read of a later turn, even
 * while one is in flight.
 */
export class TurnBatch<K, V> {
  readonly #waiting = new Map<K, Promise<V>>();
  /** Reads started (for tests and metrics). */
  reads = 0;

  constructor(private readonly read: (key: K) => Promise<V>) {}

  get(key: K): Promise<V> {
    let pending = this.#waiting.get(key);
    if (!pending) {
      pending = new Promise<V>((resolve, reject) => {
        setImmediate(() => {
          this.#waiting.delete(key);
          this.reads += 1;
          this.read(key).then(resolve, reject);
        });
      });
      this.#waiting.set(key, pending);
    }
    return pending;
  }
}
