/** Enough of EventSource for the app's streams: listeners, readyState, and ways to play the server. */
export class FakeEventSource extends EventTarget {
  static all: FakeEventSource[] = [];
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  closed = false;

  constructor(readonly url: string) {
    super();
    FakeEventSource.all.push(this);
  }

  /** The newest stream whose URL starts with `prefix`. */
  static find(prefix: string): FakeEventSource | undefined {
    return FakeEventSource.all.filter((source) => source.url.startsWith(prefix) && !source.closed).at(-1);
  }

  close() {
    this.closed = true;
    this.readyState = 2;
  }

  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }

  /** A named server event, as EventSource dispatches it. */
  send(type: string, data: unknown, id?: number | null) {
    const event = new MessageEvent(type, {
      data: JSON.stringify(data),
      lastEventId: id === undefined || id === null ? '' : String(id),
    });
    this.dispatchEvent(event);
    if (type === 'error') this.onerror?.(event);
  }

  /** The connection failed; `gaveUp`: the browser will not retry by itself. */
  fail(gaveUp: boolean) {
    this.readyState = gaveUp ? 2 : 0;
    const event = new Event('error');
    this.dispatchEvent(event);
    this.onerror?.(event);
  }
}
