import { describe, expect, it } from 'vitest';
import { FaultLedger, parseScenario, scenarioFromPrompt } from './scenario.js';

describe('parseScenario', () => {
  it('reads every kind of directive, in order, with counts', () => {
    const scenario = parseScenario(
      'review-fails=2, error=429@coder x2, stream-error=529@reviewer, malformed@planner, drop@coderx3, slow=40',
    );
    expect(scenario.reviewFails).toBe(2);
    expect(scenario.slowMs).toBe(40);
    expect(scenario.invalid).toEqual([]);
    expect(scenario.faults.map(({ kind, agent, times }) => ({ kind, agent, times }))).toEqual([
      { kind: 'error', agent: 'coder', times: 2 },
      { kind: 'stream-error', agent: 'reviewer', times: 1 },
      { kind: 'malformed', agent: 'planner', times: 1 },
      { kind: 'drop', agent: 'coder', times: 3 },
    ]);
    expect(scenario.faults[0]).toMatchObject({ status: 429 });
    expect(scenario.faults[1]).toMatchObject({ status: 529 });
  });

  it('reads the stream shape of a load test: delta size and coder answer size', () => {
    const scenario = parseScenario('chunk=12, coder-bytes=25000');
    expect(scenario).toMatchObject({ chunkChars: 12, coderBytes: 25_000, invalid: [] });
    expect(parseScenario('chunk=0').chunkChars).toBe(1);
  });

  it('reads huge=<bytes>@<agent>, a runaway answer', () => {
    expect(parseScenario('huge=2000000@coder').faults).toEqual([
      { kind: 'huge', bytes: 2_000_000, agent: 'coder', times: 1, source: 'huge=2000000@coder' },
    ]);
    expect(parseScenario('huge=10@nobody').invalid).toEqual(['huge=10@nobody']);
  });

  it('accepts each documented HTTP error status and agent', () => {
    for (const status of [400, 401, 429, 500, 529]) {
      for (const agent of ['planner', 'coder', 'reviewer', 'any']) {
        expect(parseScenario(`error=${status}@${agent}`).faults).toEqual([
          { kind: 'error', status, agent, times: 1, source: `error=${status}@${agent}` },
        ]);
      }
    }
  });

  it('collects what it does not understand instead of throwing', () => {
    const scenario = parseScenario(
      'error=418@coder, stream-error=400@coder, explode@coder, drop@nobody, review-fails=1',
    );
    expect(scenario.invalid).toEqual([
      'error=418@coder',
      'stream-error=400@coder',
      'explode@coder',
      'drop@nobody',
    ]);
    expect(scenario.faults).toEqual([]);
    expect(scenario.reviewFails).toBe(1);
  });

  it('is empty for no text', () => {
    expect(parseScenario(undefined)).toEqual({ reviewFails: 0, faults: [], invalid: [] });
    expect(parseScenario('  ')).toEqual({ reviewFails: 0, faults: [], invalid: [] });
  });

  it('finds a [simulate: …] marker anywhere in a prompt', () => {
    expect(
      scenarioFromPrompt('Task description:\nDo it. [simulate: review-fails=1, drop@coder] Thanks'),
    ).toBe('review-fails=1, drop@coder');
    expect(scenarioFromPrompt('no marker')).toBeUndefined();
  });
});

describe('FaultLedger', () => {
  it('fires a fault for the first K calls of its agent in a run, then answers normally', () => {
    const { faults } = parseScenario('error=429@coder x2');
    const ledger = new FaultLedger();
    expect(ledger.take('run-1', 'planner', faults)).toBeUndefined();
    expect(ledger.take('run-1', 'coder', faults)?.kind).toBe('error');
    expect(ledger.take('run-1', 'coder', faults)?.kind).toBe('error');
    expect(ledger.take('run-1', 'coder', faults)).toBeUndefined();
  });

  it('counts each run on its own', () => {
    const { faults } = parseScenario('drop@reviewer');
    const ledger = new FaultLedger();
    expect(ledger.take('run-a', 'reviewer', faults)?.kind).toBe('drop');
    expect(ledger.take('run-a', 'reviewer', faults)).toBeUndefined();
    expect(ledger.take('run-b', 'reviewer', faults)?.kind).toBe('drop');
  });

  it('plays several faults of one agent one after another', () => {
    const { faults } = parseScenario('error=500@coder, malformed@coder, stream-error=429@any');
    const ledger = new FaultLedger();
    const kinds = [1, 2, 3, 4].map(() => ledger.take('r', 'coder', faults)?.kind);
    expect(kinds).toEqual(['error', 'malformed', 'stream-error', undefined]);
  });

  it('forgets the oldest runs beyond its limit', () => {
    const { faults } = parseScenario('drop@coder');
    const ledger = new FaultLedger(2);
    ledger.take('r1', 'coder', faults);
    ledger.take('r2', 'coder', faults);
    ledger.take('r3', 'coder', faults);
    expect(ledger.take('r1', 'coder', faults)?.kind).toBe('drop');
    expect(ledger.take('r3', 'coder', faults)).toBeUndefined();
  });
});
