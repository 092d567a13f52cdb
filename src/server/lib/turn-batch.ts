/**
 * Reads of one key share one read: the callers of one turn of the event loop, and every caller
 * that comes while a read of that key is in flight.
 *
 * A read starts in a turn's check phase (`setImmediate`), after every request that the turn's I/O
 * callbacks parsed has asked, so it starts after each of its callers asked: a caller never
 * receives a value read before it called — what it would have got from a read of its own, only
 * fewer of them. At most one read per key is in flight: callers that come meanwhile wait for the
 * next one, which starts once it settles. Under load a key costs one read per round trip, however
 * many callers each round trip serves (50 boards revalidating in a loop: one query at a time, not
 * one per turn), and a caller waits at most two round trips.
 */
export class TurnBatch<K, V> {
  /** Per key, the callers waiting for a read that has not started yet. */
  readonly #next = new Map<K, Deferred<V>>();
  readonly #inFlight = new Set<K>();
  /** Reads started (for tests and metrics). */
  reads = 0;

  constructor(private readonly read: (key: K) => Promise<V>) {}

  get(key: K): Promise<V> {
    let next = this.#next.get(key);
    if (!next) {
      next = deferred<V>();
      this.#next.set(key, next);
      if (!this.#inFlight.has(key)) setImmediate(() => this.#start(key));
    }
    return next.promise;
  }

  #start(key: K): void {
    const callers = this.#next.get(key);
    if (!callers) return;
    this.#next.delete(key);
    this.#inFlight.add(key);
    this.reads += 1;
    let reading: Promise<V>;
    try {
      reading = this.read(key);
    } catch (error) {
      reading = Promise.reject(error);
    }
    reading.then(
      (value) => {
        this.#settled(key);
        callers.resolve(value);
      },
      (error: unknown) => {
        this.#settled(key);
        callers.reject(error);
      },
    );
  }

  /** The next read is scheduled before the callers of this one go on. */
  #settled(key: K): void {
    this.#inFlight.delete(key);
    if (this.#next.has(key)) setImmediate(() => this.#start(key));
  }
}

interface Deferred<V> {
  promise: Promise<V>;
  resolve: (value: V) => void;
  reject: (reason: unknown) => void;
}

function deferred<V>(): Deferred<V> {
  let resolve!: (value: V) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<V>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}
