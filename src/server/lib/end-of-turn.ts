/**
 * Work put off to the end of the current turn of the event loop: its check phase (`setImmediate`),
 * after every I/O callback of the turn has run. Functions run once each, in the order they came;
 * one that throws does not stop the others (its error is reported as an uncaught exception would
 * be, on the next tick). The service proxy sends a turn's requests to services here, so that a
 * service is handed them in one burst rather than woken once per request between the proxy's
 * reads (`services/upstream.ts`).
 */
const queued: Array<() => void> = [];
let scheduled = false;

function runQueued(): void {
  scheduled = false;
  const now = queued.splice(0);
  for (const work of now) {
    try {
      work();
    } catch (error) {
      process.nextTick(() => {
        throw error;
      });
    }
  }
}

export function atEndOfTurn(work: () => void): void {
  queued.push(work);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runQueued);
  }
}
