import { describe, expect, it } from 'vitest';
import { passingReview, plan, runDetail, runEvents } from '@/web/testing/run-fixtures';
import { emptyTaskRun, propose, reduceEvents, seedRun, type TaskRun, viewOf, withdraw } from './run-reducer';
import { newRunState, productsWanted } from './run-state';

const e = runEvents('run-1');
const reduce = (...events: Parameters<typeof reduceEvents>[1]) => reduceEvents(emptyTaskRun(), events);

describe('a task’s run, reduced from its stream', () => {
  it('follows the run’s summary and phase changes, with the subtask being coded', () => {
    const task = reduce(
      e.update(1, { phase: 'planning' }),
      e.phase(2, 'planning'),
      e.update(3, { phase: 'coding', subtask: { index: 2, total: 3 }, headCommit: 'c1' }),
      e.phase(4, 'coding', 'running', 0, { index: 2, total: 3, title: 'Two' }),
    );
    expect(viewOf(task)).toMatchObject({
      runId: 'run-1',
      phase: 'coding',
      subtask: { index: 2, total: 3, title: 'Two' },
      subtaskTotal: 3,
      headCommit: 'c1',
      lastActivePhase: 'coding',
    });
    expect(task.seq).toBe(4);
  });

  it('applies each event once: a replay or an older id changes nothing', () => {
    const events = [e.phase(1, 'planning'), e.log(2, 'planner', 'plan'), e.phase(3, 'coding')];
    const once = reduce(...events);
    expect(reduceEvents(once, events)).toBe(once);
    expect(reduceEvents(once, [e.phase(2, 'planning')])).toBe(once);
    expect(viewOf(once)?.phase).toBe('coding');
    expect(once.logs.planner.map((l) => (l.kind === 'prose' ? l.chunk : l.kind))).toEqual(['plan']);
  });

  it('a request for changes (a summary with a later round) begins a new round', () => {
    const task = reduce(
      e.phase(1, 'fixing', 'running', 1),
      e.update(2, { phase: 'completed', status: 'passed', iteration: 1 }),
      e.update(3, { phase: 'coding', iteration: 2, roundStart: 2 }),
    );
    expect(viewOf(task)).toMatchObject({ roundStart: 2, fixedInRound: false, status: 'running' });
  });

  it('pauses on a retryable error and fails on one that is not', () => {
    const paused = reduce(e.error(1));
    expect(viewOf(paused)).toMatchObject({ status: 'paused', lastActivePhase: 'coding' });
    const failed = reduceEvents(paused, [e.error(2, { retryable: false })]);
    expect(viewOf(failed)).toMatchObject({ status: 'failed', phase: 'failed' });
  });

  it('keeps the outcome, files and findings of the run’s end', () => {
    const task = reduce(e.update(1, { headCommit: 'c2' }), e.complete(2, 'passed'));
    expect(viewOf(task)).toMatchObject({
      status: 'passed',
      phase: 'completed',
      reviewFindings: { score: 92 },
    });
    expect(viewOf(task)?.fileChanges).toHaveLength(1);
    expect(productsWanted(task.confirmed)).toBeNull();
  });

  it('starts afresh, logs included, on an event of another run, and ignores the old run’s late events', () => {
    const old = reduce(e.log(1, 'planner', 'old'), e.phase(2, 'failed', 'failed'));
    const next = runEvents('run-2');
    const task = reduceEvents(old, [next.phase(3, 'planning'), e.phase(4, 'coding')]);
    expect(viewOf(task)).toMatchObject({ runId: 'run-2', phase: 'planning' });
    expect(task.logs).toMatchObject({ runId: 'run-2', planner: [] });
    expect(task.seq).toBe(4);
  });

  it('appends a replay’s thousands of chunks in one pass', () => {
    const chunks = Array.from({ length: 5000 }, (_, i) => e.log(i + 1, 'coder', 'x'));
    const task = reduce(...chunks);
    expect(task.logs.coder).toHaveLength(5000);
    expect(reduceEvents(task, [e.log(5001, 'coder', 'y')]).logs.coder).toHaveLength(5001);
    expect(task.logs.coder).toHaveLength(5000);
  });
});

describe('optimistic changes', () => {
  const running = (): TaskRun => reduce(e.update(1, { phase: 'coding' }));

  it('show until the server’s next event on the run, which supersedes them', () => {
    const base = running();
    const proposed = { ...viewOf(base)!, status: 'cancelled' as const, phase: 'cancelled' as const };
    const shown = propose(base, proposed);
    expect(viewOf(shown)?.status).toBe('cancelled');
    // A log chunk says nothing of the run's state.
    expect(viewOf(reduceEvents(shown, [e.log(2, 'coder', 'x')]))?.status).toBe('cancelled');
    const answered = reduceEvents(shown, [e.update(3, { phase: 'reviewing' })]);
    expect(answered.pending).toBeNull();
    expect(viewOf(answered)?.phase).toBe('reviewing');
  });

  it('are taken back when refused, unless events already replaced them', () => {
    const base = running();
    const proposed = { ...viewOf(base)!, status: 'cancelled' as const };
    expect(viewOf(withdraw(propose(base, proposed), proposed))?.status).toBe('running');
    const superseded = reduceEvents(propose(base, proposed), [e.update(2, { status: 'paused' })]);
    expect(withdraw(superseded, proposed)).toBe(superseded);
  });

  it('a started run not heard of yet stays shown through the old run’s late events', () => {
    const ended = reduce(e.update(1, { status: 'failed', phase: 'failed' }));
    const started = propose(ended, newRunState('run-2', 5_000, 'simulator'));
    const late = reduceEvents(started, [e.update(2, { status: 'failed', phase: 'failed' })]);
    expect(viewOf(late)).toMatchObject({ runId: 'run-2', status: 'running', simulated: true });
    const heard = reduceEvents(late, [runEvents('run-2').update(3, { id: 'run-2', phase: 'planning' })]);
    expect(heard.pending).toBeNull();
    expect(viewOf(heard)?.runId).toBe('run-2');
  });
});

describe('the fetched copy', () => {
  it('seeds a run no event has told of, with its products', () => {
    const task = seedRun(emptyTaskRun(), runDetail({ phase: 'coding', subtasks: plan, headCommit: 'c1' }));
    expect(viewOf(task)).toMatchObject({ runId: 'run-1', phase: 'coding', subtasks: plan, headCommit: 'c1' });
    expect(productsWanted(task.confirmed)).toBeNull();
  });

  it('brings products but never overrules the events on where the run stands', () => {
    const streamed = reduce(e.update(9, { phase: 'reviewing', headCommit: 'c2' }));
    const task = seedRun(streamed, runDetail({ phase: 'coding', subtasks: plan, headCommit: 'c2' }));
    expect(viewOf(task)).toMatchObject({ phase: 'reviewing', subtasks: plan });
  });

  it('is wanted again only when events tell of a new product: the plan, a commit, a review', () => {
    const seeded = seedRun(emptyTaskRun(), runDetail({ phase: 'planning' }));
    expect(productsWanted(seeded.confirmed)).toBeNull();
    const coding = reduceEvents(seeded, [e.update(1, { phase: 'coding', subtask: { index: 1, total: 2 } })]);
    expect(productsWanted(coding.confirmed)).not.toBeNull();
    const read = seedRun(coding, runDetail({ phase: 'coding', subtasks: plan }));
    expect(productsWanted(read.confirmed)).toBeNull();
    const committed = reduceEvents(read, [e.update(2, { phase: 'coding', headCommit: 'c1' })]);
    expect(productsWanted(committed.confirmed)).not.toBeNull();
    const reviewed = seedRun(committed, runDetail({ subtasks: plan, headCommit: 'c1' }));
    const scored = reduceEvents(reviewed, [
      e.update(3, { phase: 'fixing', headCommit: 'c1', reviewScore: 40 }),
    ]);
    expect(productsWanted(scored.confirmed)).not.toBeNull();
  });

  it('of an older run does not replace a newer one the stream started', () => {
    const streamed = reduce(
      runEvents('run-2').update(1, { id: 'run-2', startedAt: new Date(9_000).toISOString() }),
    );
    expect(viewOf(seedRun(streamed, runDetail()))?.runId).toBe('run-2');
  });

  it('taken while the run went on does not replace the products of its end', () => {
    const ended = reduce(e.complete(1, 'passed'));
    const task = seedRun(ended, runDetail({ status: 'running', reviewFindings: null }));
    expect(viewOf(task)?.reviewFindings).toEqual(passingReview);
  });

  it('gathers check output into one check per run of it, each ended by its result, in order', () => {
    const first = reduce(
      e.phase(1, 'coding'),
      e.checkLog(2, 'checking\n'),
      e.checkLog(3, 'fixed.txt is missing\n', 'stderr'),
    );
    expect(first.logs.checks).toHaveLength(1);
    expect(first.logs.checks[0]?.result).toBeNull();
    const later = reduceEvents(first, [
      e.checkResult(4, { exitCode: 3, tail: 'fixed.txt is missing\n' }),
      e.phase(5, 'reviewing'),
      e.phase(6, 'fixing', 'running', 1),
      e.checkResult(7, { exitCode: 0 }),
      e.checkLog(8, 'third\n'),
    ]);
    const checks = later.logs.checks;
    expect(checks.map((c) => c.entries.map((l) => [l.stream, l.chunk]))).toEqual([
      [
        ['stdout', 'checking\n'],
        ['stderr', 'fixed.txt is missing\n'],
      ],
      [],
      [['stdout', 'third\n']],
    ]);
    expect(checks.map((c) => c.result?.exitCode ?? null)).toEqual([3, 0, null]);
    expect(checks[0]?.result).toMatchObject({ passed: false, timedOut: false });
    // What was reduced before is not changed in place.
    expect(first.logs.checks[0]?.result).toBeNull();
    expect(first.logs.checks[0]?.entries).toHaveLength(2);
    // A replay changes nothing; a new run starts without checks.
    expect(reduceEvents(later, [e.checkLog(3, 'again')])).toBe(later);
    const next = reduceEvents(later, [runEvents('run-2').phase(9, 'planning')]);
    expect(next.logs.checks).toEqual([]);
  });

  it('gathers setup output apart from the checks: one setup per attempt, a cache hit standing alone', () => {
    const task = reduce(
      e.phase(1, 'coding'),
      e.setupLog(2, 'npm ERR!\n', 'stderr'),
      e.setupResult(3, { exitCode: 1, reason: 'exit code 1' }),
      e.checkLog(4, 'checking\n'),
      e.setupResult(5, { exitCode: null, cache: 'hit' }),
    );
    expect(task.logs.checks).toHaveLength(1);
    expect(task.logs.setups.map((s) => s.entries.map((l) => [l.stream, l.chunk]))).toEqual([
      [['stderr', 'npm ERR!\n']],
      [],
    ]);
    expect(task.logs.setups.map((s) => [s.result?.passed, s.result?.cache])).toEqual([
      [false, 'miss'],
      [true, 'hit'],
    ]);
    const next = reduceEvents(task, [runEvents('run-2').phase(9, 'planning')]);
    expect(next.logs.setups).toEqual([]);
  });
});

describe('the agents’ timelines', () => {
  const kinds = (task: TaskRun) =>
    task.logs.coder.map((entry) =>
      entry.kind === 'prose'
        ? `prose:${entry.chunk}`
        : entry.kind === 'tool'
          ? `${entry.tool}:${entry.result ? (entry.result.ok ? 'ok' : 'failed') : 'pending'}`
          : `usage:${entry.call.toolCalls}`,
    );

  it('keeps prose, tool calls and step usage in stream order; a result completes its call in place', () => {
    const calling = reduce(
      e.log(1, 'coder', 'Reading first. '),
      e.toolCall(2, 'coder', 'c1', 'read_file', { path: 'src/a.ts' }),
      e.toolCall(3, 'coder', 'c2', 'search', { pattern: 'a' }),
    );
    expect(kinds(calling)).toEqual(['prose:Reading first. ', 'read_file:pending', 'search:pending']);
    const done = reduceEvents(calling, [
      e.toolResult(4, 'coder', 'c2', 'Searched a — 0 matches', { ok: false }),
      e.toolResult(5, 'coder', 'c1', 'Read src/a.ts lines 1–20'),
      e.log(6, 'coder', 'Done.'),
      e.usage(7, { agent: 'coder', toolCalls: 2 }),
    ]);
    expect(kinds(done)).toEqual([
      'prose:Reading first. ',
      'read_file:ok',
      'search:failed',
      'prose:Done.',
      'usage:2',
    ]);
    expect(viewOf(done)?.usage).toMatchObject({ inputTokens: 1_000, outputTokens: 200 });
    // What was reduced before is not changed in place; a replay changes nothing.
    expect(kinds(calling)).toEqual(['prose:Reading first. ', 'read_file:pending', 'search:pending']);
    expect(reduceEvents(done, [e.toolResult(5, 'coder', 'c1', 'again')])).toBe(done);
    // The other agents' timelines are their own.
    expect(done.logs.planner).toEqual([]);
  });

  it('tells a run_check which check it ran, and keeps a result whose call was not seen', () => {
    const task = reduce(
      e.checkLog(1, 'earlier check\n'),
      e.checkResult(2, { exitCode: 0 }),
      e.toolCall(3, 'coder', 'c1', 'run_check'),
      e.checkLog(4, 'FAIL\n', 'stderr'),
      e.checkResult(5, { exitCode: 1 }),
      e.toolResult(6, 'coder', 'c1', 'Ran the check — failed, exit 1', {
        check: { passed: false, exitCode: 1 },
      }),
      e.toolCall(7, 'coder', 'c2', 'run_check'),
      e.toolResult(8, 'coder', 'c2', 'The check could not start', { ok: false }),
      e.toolResult(9, 'coder', 'lost', 'Edited src/a.ts +1 −0', {
        change: { path: 'src/a.ts', added: 1, removed: 0 },
      }),
    );
    const tools = task.logs.coder.filter((entry) => entry.kind === 'tool');
    expect(tools.map((entry) => [entry.callId, entry.checkIndex])).toEqual([
      ['c1', 1],
      ['c2', null],
      ['lost', null],
    ]);
    expect(tools[2]?.result?.summary).toBe('Edited src/a.ts +1 −0');
  });
});
