import { namesOf } from './plan.js';
import type { PromptInfo } from './prompt.js';
import { hasToolFault, type Scenario } from './scenario.js';
import {
  type CoderFacts,
  changeCall,
  exists,
  failedCheckOutput,
  lookedAtPaths,
  observe,
  readCall,
  targetState,
  targets,
} from './tool-coder.js';
import type { ToolConversation } from './tool-conversation.js';
import {
  callsOf,
  checkPassed,
  describeCalls,
  type PlannedCall,
  succeeded,
  type ToolTurn,
} from './tool-history.js';

/** Turns after which the coder finishes whatever happened: a bound against a conversation it misreads. */
const MAX_TURNS = 40;

function stepName(info: PromptInfo): string {
  if (info.subtask) return `subtask ${info.subtask.index}/${info.subtask.total}`;
  if (info.fixIteration !== undefined) return `fix (iteration ${info.fixIteration})`;
  return 'the whole task';
}

const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/**
 * The coder's next turn: look (list_files), read and search, change, check (and fix the check
 * once with `check-fix=`), finish. A change that fails is retried once after reading the file
 * again, then given up (and said so in the summary).
 */
export function coderTurn(info: PromptInfo, scenario: Scenario, conversation: ToolConversation): ToolTurn {
  const calls = callsOf(conversation);
  const facts = observe(calls);
  const can = (name: string) => conversation.tools.includes(name);
  // As the one-shot coder says it: the person's line comments it answers.
  const comments = info.comments.length
    ? ` Line comments answered: ${info.comments.slice(0, 10).join('; ')}.`
    : '';
  const opening = `Simulated coder: ${stepName(info)} of "${info.task.title}".${comments}`;
  if (facts.finishTried) return { text: summaryOf(info, scenario, facts), calls: [] };
  if (conversation.turns.length >= MAX_TURNS) return finishTurn(info, scenario, facts, can);

  if (!facts.listed && facts.listCalls < 2 && can('list_files')) {
    const dirs = [...new Set(lookedAtPaths(info).map(dirOf))];
    const next = dirs.map((dir): PlannedCall => ({ name: 'list_files', input: dir ? { path: dir } : {} }));
    return { text: `${opening} First, ${describeCalls(next)}.`, calls: next };
  }

  const all = currentTargets(info, scenario, facts);
  const states = all.map((target) => ({ target, state: targetState(target, facts) }));
  const reads = can('read_file')
    ? states.filter((s) => s.state === 'read').map((s) => readCall(s.target.path, facts))
    : [];
  const search = can('search') && !facts.searched && facts.changes.size === 0;
  if (reads.length > 0 || search) {
    const next = [...reads];
    if (search) next.push({ name: 'search', input: { pattern: namesOf(info.task).fn, fixed: true } });
    const again = reads.some((r) => facts.changes.has(String(r.input.path))) ? ' again' : '';
    return { text: `Simulated coder: ${describeCalls(next)}${again}.`, calls: next };
  }

  const miss = hasToolFault(scenario, 'edit-miss', 'coder') && facts.edits === 0;
  const changes: PlannedCall[] = [];
  for (const { target, state } of states) {
    if (state !== 'change') continue;
    const call = changeCall(target, facts, miss && !changes.some((c) => c.name === 'edit_file'));
    if (call && can(call.name)) changes.push(call);
  }
  if (changes.length > 0) return { text: `Simulated coder: ${describeCalls(changes)}.`, calls: changes };

  const lastCheck = facts.checks.at(-1);
  if (can('run_check') && (!lastCheck || lastCheck.index < facts.lastChange) && facts.checks.length < 3) {
    const next: PlannedCall[] = [{ name: 'run_check', input: {} }];
    return { text: `Simulated coder: ${describeCalls(next)}.`, calls: next };
  }
  return finishTurn(info, scenario, facts, can);
}

function currentTargets(info: PromptInfo, scenario: Scenario, facts: CoderFacts) {
  const existing = new Set([...(facts.listed ?? [])].filter((path) => exists(path, facts)));
  return targets(info, scenario, existing, failedCheckOutput(facts));
}

function finishTurn(info: PromptInfo, scenario: Scenario, facts: CoderFacts, can: (name: string) => boolean) {
  const summary = summaryOf(info, scenario, facts);
  if (!can('finish')) return { text: summary, calls: [] };
  return { text: 'Simulated coder: the step is done.', calls: [{ name: 'finish', input: { summary } }] };
}

/** What the coder tells the reviewer it did: files changed, given up, and the check's verdict. */
function summaryOf(info: PromptInfo, scenario: Scenario, facts: CoderFacts): string {
  const all = currentTargets(info, scenario, facts);
  const changed: string[] = [];
  const failed: string[] = [];
  for (const target of all) {
    const calls = facts.changes.get(target.path) ?? [];
    if (calls.some(succeeded)) changed.push(`${target.path} (${calls.find(succeeded)!.name})`);
    else if (calls.length > 0) failed.push(target.path);
  }
  const parts = [
    `Simulated coder (scripted, not AI): ${stepName(info)} of "${info.task.title}".`,
    changed.length ? `Changed ${changed.join(', ')}.` : 'Nothing needed changing.',
  ];
  if (failed.length) parts.push(`Could not change ${failed.join(', ')}.`);
  const check = facts.checks.at(-1);
  if (check?.result) parts.push(checkPassed(check) ? 'The check passes.' : 'The check still fails.');
  return parts.join(' ');
}
