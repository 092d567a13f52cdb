import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { openEventStream, type StreamState } from './event-stream';

const latest = () => FakeEventSource.all.at(-1) as FakeEventSource;

function open(options: Partial<Parameters<typeof openEventStream>[0]> = {}) {
  const messages: [string, unknown, number | null][] = [];
  const states: StreamState[] = [];
  const stream = openEventStream({
    url: '/api/sse/t1',
    events: ['agent-log', 'error'],
    onMessage: (type, data, id) => messages.push([type, data, id]),
    onStateChange: (state) => states.push(state),
    createEventSource: (url) => new FakeEventSource(url) as unknown as EventSource,
    ...options,
  });
  return { stream, messages, states };
}

beforeEach(() => {
  FakeEventSource.all = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe('openEventStream', () => {
  it('dispatches named events with their ids, the server’s "error" event included', () => {
    const { messages, states } = open();
    latest().open();
    latest().send('agent-log', { chunk: 'a' }, 7);
    latest().send('error', { message: 'rate limited' }, 8);
    expect(messages).toEqual([
      ['agent-log', { chunk: 'a' }, 7],
      ['error', { message: 'rate limited' }, 8],
    ]);
    expect(states.at(-1)).toBe('open');
    expect(FakeEventSource.all).toHaveLength(1);
  });

  it('leaves reconnecting to the browser while it retries by itself', () => {
    const { states } = open();
    latest().open();
    latest().fail(false);
    vi.advanceTimersByTime(10_000);
    expect(FakeEventSource.all).toHaveLength(1);
    expect(states.at(-1)).toBe('reconnecting');
  });

  it('reconnects after 1 s, 2 s and 4 s once the browser gives up, resuming after the last id, then stops', () => {
    const { states } = open();
    latest().open();
    latest().send('agent-log', { chunk: 'a' }, 41);
    latest().fail(true);
    vi.advanceTimersByTime(999);
    expect(FakeEventSource.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeEventSource.all).toHaveLength(2);
    expect(latest().url).toBe('/api/sse/t1?lastEventId=41');
    latest().fail(true);
    vi.advanceTimersByTime(2000);
    expect(FakeEventSource.all).toHaveLength(3);
    latest().fail(true);
    vi.advanceTimersByTime(4000);
    expect(FakeEventSource.all).toHaveLength(4);
    latest().fail(true);
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.all).toHaveLength(4);
    expect(states.at(-1)).toBe('failed');
  });

  it('starts the attempts over once a connection opens', () => {
    open();
    latest().fail(true);
    vi.advanceTimersByTime(1000);
    latest().fail(true);
    vi.advanceTimersByTime(2000);
    latest().open();
    latest().fail(true);
    vi.advanceTimersByTime(1000);
    expect(FakeEventSource.all).toHaveLength(4);
  });

  it('after the server’s timeout, resumes only while the caller wants it', () => {
    let active = true;
    const { states } = open({ resumeAfterTimeout: () => active });
    latest().open();
    latest().send('agent-log', { chunk: 'a' }, 3);
    latest().send('timeout', { message: 'bye' });
    expect(FakeEventSource.all).toHaveLength(2);
    expect(FakeEventSource.all[0]?.closed).toBe(true);
    expect(latest().url).toBe('/api/sse/t1?lastEventId=3');
    active = false;
    latest().open();
    latest().send('timeout', { message: 'bye' });
    expect(FakeEventSource.all).toHaveLength(2);
    expect(states.at(-1)).toBe('idle');
  });

  it('resumes from a known id on the first connection, and a manual reconnect passes the last id', () => {
    const { stream } = open({ initialLastEventId: 12 });
    expect(latest().url).toBe('/api/sse/t1?lastEventId=12');
    latest().send('agent-log', { chunk: 'a' }, 13);
    stream.reconnect();
    expect(latest().url).toBe('/api/sse/t1?lastEventId=13');
    expect(FakeEventSource.all[0]?.closed).toBe(true);
  });

  it('close() stops everything, pending retries included', () => {
    const { stream } = open();
    latest().fail(true);
    stream.close();
    vi.advanceTimersByTime(10_000);
    expect(FakeEventSource.all).toHaveLength(1);
  });
});
