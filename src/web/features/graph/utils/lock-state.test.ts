import { describe, expect, it } from 'vitest';
import type { CoordinationEvent, LockActivityData, ProjectLock } from '@/contracts/coordination';
import {
  emptyLockState,
  holdersInOrder,
  type LockState,
  lockStateFrom,
  reduceLocks,
  shownHolder,
} from './lock-state';

const alice = { id: 'tok-alice', name: 'Alice' };
const bob = { id: 'tok-bob', name: 'Bob' };
const run = { id: 'run-1', name: 'Export a farewell' };

const activity = (over: Partial<LockActivityData> = {}): LockActivityData => ({
  branch: 'main',
  agent: alice,
  files: ['src/a.ts'],
  status: 'WRITING',
  message: 'Alice rewrites a.',
  timestamp: 1_000,
  ...over,
});
const taken = (over: Partial<LockActivityData> = {}): CoordinationEvent => ({
  type: 'lock-taken',
  data: activity(over),
});
const released = (over: Partial<LockActivityData> = {}): CoordinationEvent => ({
  type: 'lock-released',
  data: activity({ status: 'OPEN', ...over }),
});

const apply = (state: LockState, ...events: CoordinationEvent[]) => events.reduce(reduceLocks, state);
const who = (state: LockState, path: string) =>
  (state.files[path] ?? []).map((held) => `${held.agent.name}:${held.status}`);

describe('the graph’s locks, live', () => {
  it('starts from the project’s snapshot, every holder of a file once', () => {
    const lock = (over: Partial<ProjectLock>): ProjectLock => ({
      path: 'src/a.ts',
      status: 'READING',
      agent: alice,
      message: 'Reading a.',
      timestamp: 5,
      ...over,
    });
    const state = lockStateFrom('main', [
      lock({}),
      lock({ agent: bob, status: 'WRITING', message: 'Bob writes a.' }),
      lock({ path: 'src/b.ts', agent: run, status: 'WRITING', taskId: 't-1', timestamp: 7 }),
    ]);
    expect(state.branch).toBe('main');
    expect(who(state, 'src/a.ts')).toEqual(['Alice:READING', 'Bob:WRITING']);
    expect(state.files['src/b.ts']).toEqual([
      { agent: run, status: 'WRITING', message: 'Reading a.', since: 7, taskId: 't-1' },
    ]);
  });

  it('takes, re-takes and releases per agent: another agent’s locks stay', () => {
    let state = apply(
      emptyLockState('main'),
      taken({ files: ['src/a.ts', 'src/b.ts'] }),
      taken({
        agent: bob,
        status: 'READING',
        files: ['src/a.ts'],
        message: 'Bob reads a.',
        timestamp: 2_000,
      }),
    );
    expect(who(state, 'src/a.ts')).toEqual(['Alice:WRITING', 'Bob:READING']);
    expect(who(state, 'src/b.ts')).toEqual(['Alice:WRITING']);

    state = apply(state, released({ files: ['src/a.ts'] }));
    expect(who(state, 'src/a.ts')).toEqual(['Bob:READING']);
    expect(who(state, 'src/b.ts')).toEqual(['Alice:WRITING']);

    state = apply(state, {
      type: 'lock-expired',
      data: { branch: 'main', agent: bob, files: ['src/a.ts'], message: 'Bob reads a.', timestamp: 9_000 },
    });
    expect(state.files['src/a.ts']).toBeUndefined();
    // Releasing what one does not hold changes nothing.
    expect(apply(state, released({ agent: bob, files: ['src/b.ts'] }))).toEqual(state);
  });

  it('keeps “since” when the same lock is posted again, and starts it anew when the status changes', () => {
    let state = apply(
      emptyLockState('main'),
      taken({ timestamp: 1_000 }),
      taken({ timestamp: 4_000, message: 'Still on a.' }),
    );
    expect(state.files['src/a.ts']?.[0]).toMatchObject({ since: 1_000, message: 'Still on a.' });
    state = apply(state, taken({ status: 'READING', timestamp: 6_000 }));
    expect(state.files['src/a.ts']?.[0]).toMatchObject({ status: 'READING', since: 6_000 });
  });

  it('changes nothing on a refusal, or for another branch', () => {
    const state = apply(emptyLockState('main'), taken());
    const refused: CoordinationEvent = {
      type: 'lock-refused',
      data: { ...activity({ agent: bob }), conflicts: ['src/a.ts'], holder: alice.id },
    };
    expect(reduceLocks(state, refused)).toBe(state);
    expect(reduceLocks(state, taken({ agent: bob, branch: 'feature/x' }))).toBe(state);
    expect(reduceLocks(state, released({ branch: 'feature/x' }))).toBe(state);
  });

  it('remembers the task of a pipeline run’s lock', () => {
    const state = apply(emptyLockState('main'), taken({ agent: run, taskId: 't-9' }));
    expect(state.files['src/a.ts']?.[0]?.taskId).toBe('t-9');
  });

  it('shows a file by its writer, else its latest reader; the panel lists the writer first', () => {
    const state = apply(
      emptyLockState('main'),
      taken({ agent: bob, status: 'READING', timestamp: 3_000 }),
      taken({ agent: run, status: 'READING', timestamp: 2_000 }),
    );
    expect(shownHolder(state.files['src/a.ts'])?.agent).toEqual(bob);
    const written = apply(state, taken({ timestamp: 1_000 }));
    expect(shownHolder(written.files['src/a.ts'])?.agent).toEqual(alice);
    expect(holdersInOrder(written.files['src/a.ts']).map((held) => held.agent.name)).toEqual([
      'Alice',
      'Bob',
      'Export a farewell',
    ]);
    expect(shownHolder(undefined)).toBeUndefined();
  });
});
