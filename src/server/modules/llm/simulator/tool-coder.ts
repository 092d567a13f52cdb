import {
  checkFixContent,
  fixedContent,
  plannedFiles,
  regeneratedFile,
  resolveConflictMarkers,
  writeStep,
} from './agents.js';
import { languageOf } from './content.js';
import { editFor, withLineNumbers } from './edit-plan.js';
import { namesOf, planFor, singleStepFor, type TaskNames } from './plan.js';
import type { PromptInfo } from './prompt.js';
import type { Scenario } from './scenario.js';
import {
  type CallRecord,
  checkPassed,
  FileView,
  field,
  listedPaths,
  type PlannedCall,
  parseRead,
  succeeded,
} from './tool-history.js';

/**
 * The tool-using coder's normal step, decided afresh from the conversation on every turn: list
 * the target's directories, read the files it will change and search for the task's name, change
 * them (edit_file on an existing file, write_file on a new one) with the content the one-shot coder
 * would have given, run the check, fix it once when a `check-fix=` scenario says how, and finish.
 */

/** A file the step changes: what it should read, given what it reads now (undefined: missing). */
interface Target {
  path: string;
  /** The content the step gives the file; undefined: nothing to do. */
  desired(current: string | undefined): string | undefined;
  /**
   * A file with conflict markers: known to exist whatever the listing says (read before it is
   * changed), and changed with edit_file however much changes, as the prompt asks.
   */
  conflicted?: boolean;
}

/** What the conversation shows the coder has done and learnt. */
export interface CoderFacts {
  listed: Set<string> | undefined;
  listCalls: number;
  views: Map<string, FileView>;
  /** Failed read_file calls by path (a listed file that could not be read). */
  readFailures: Map<string, number>;
  reads: Map<string, number>;
  searched: boolean;
  /** edit_file / write_file calls by path, in order. */
  changes: Map<string, CallRecord[]>;
  /** Index of the last successful change, -1 when none. */
  lastChange: number;
  checks: CallRecord[];
  edits: number;
  finishTried: boolean;
}

export function observe(calls: readonly CallRecord[]): CoderFacts {
  const facts: CoderFacts = {
    listed: undefined,
    listCalls: 0,
    views: new Map(),
    readFailures: new Map(),
    reads: new Map(),
    searched: false,
    changes: new Map(),
    lastChange: -1,
    checks: [],
    edits: 0,
    finishTried: false,
  };
  for (const call of calls) {
    const path = field(call, 'path');
    switch (call.name) {
      case 'list_files':
        facts.listCalls++;
        if (succeeded(call)) {
          facts.listed ??= new Set();
          for (const listed of listedPaths(call.result!.content)) facts.listed.add(listed);
        }
        break;
      case 'read_file':
        if (!path) break;
        facts.reads.set(path, (facts.reads.get(path) ?? 0) + 1);
        if (succeeded(call)) {
          const view = facts.views.get(path) ?? new FileView();
          facts.views.set(path, view);
          view.add(parseRead(call.result!.content));
        } else facts.readFailures.set(path, (facts.readFailures.get(path) ?? 0) + 1);
        break;
      case 'search':
        facts.searched = true;
        break;
      case 'edit_file':
      case 'write_file':
        if (!path) break;
        if (call.name === 'edit_file') facts.edits++;
        facts.changes.set(path, [...(facts.changes.get(path) ?? []), call]);
        // What was read before is stale either way: changed, or not as the coder thought.
        facts.views.delete(path);
        if (succeeded(call)) facts.lastChange = call.index;
        break;
      case 'run_check':
        facts.checks.push(call);
        break;
      case 'finish':
        facts.finishTried = true;
        break;
    }
  }
  return facts;
}

const CANDIDATE = /^(?:\[\w+\]\s+)?([\w./-]+\.[\w]+):\d+/;

/**
 * The files a fix step might change: as the one-shot coder, those the run changed so far (and
 * those its findings and comments name); before any change, the plan's.
 */
function fixCandidates(info: PromptInfo, names: TaskNames): string[] {
  const named = [...info.findings, ...info.comments]
    .map((item) => CANDIDATE.exec(item)?.[1])
    .filter((path): path is string => path !== undefined);
  const base = info.changedSoFar.length ? info.changedSoFar : plannedFiles(info, names);
  return [...new Set([...base, ...named])].filter((p) => languageOf(p) !== 'json');
}

/** The paths the step will look at before it knows what exists (what list_files is asked about). */
export function lookedAtPaths(info: PromptInfo): string[] {
  const names = namesOf(info.task);
  if (info.conflictPaths.length > 0) return info.conflictPaths;
  if (info.fixIteration !== undefined) return fixCandidates(info, names);
  return targets(info, undefined, new Set()).map((t) => t.path);
}

function stepKinds(info: PromptInfo) {
  const plan = planFor(info.task);
  return info.subtask ? (plan[info.subtask.index - 1]?.kinds ?? ['extend-main']) : singleStepFor(info.task);
}

/** The files this step changes, knowing which exist (`exists`). */
export function targets(
  info: PromptInfo,
  scenario: Scenario | undefined,
  exists: ReadonlySet<string>,
  failedCheck?: string,
): Target[] {
  const names = namesOf(info.task);
  const out: Target[] = [];
  if (info.conflictPaths.length > 0) {
    // Resolved as the one-shot coder resolves them: both sides kept (a file that cannot be read is left).
    for (const path of info.conflictPaths)
      out.push({
        path,
        conflicted: true,
        desired: (cur) => (cur === undefined ? undefined : resolveConflictMarkers(cur)),
      });
  } else if (info.fixIteration !== undefined) {
    const candidates = fixCandidates(info, names);
    const existing = candidates.filter((p) => exists.has(p)).slice(0, 5);
    for (const path of existing.length ? existing : plannedFiles(info, names))
      out.push({
        path,
        desired: (cur) => fixedContent(path, cur ?? regeneratedFile(path, info, names), info, names),
      });
  } else {
    for (const kind of stepKinds(info)) {
      const path = writeStep(kind, info.task, names, new Map()).filePath;
      out.push({
        path,
        desired: (cur) =>
          writeStep(kind, info.task, names, new Map(cur === undefined ? [] : [[path, cur]])).content,
      });
    }
  }
  const check = failedCheck ?? (info.fixIteration !== undefined ? info.failedCheck : undefined);
  if (check !== undefined && scenario?.checkFix) {
    const path = scenario.checkFix;
    const fix = { path, desired: () => checkFixContent(check) };
    const at = out.findIndex((t) => t.path === path);
    if (at >= 0) out[at] = fix;
    else out.push(fix);
  }
  return out;
}

/** Where a target stands: done, given up, to be read (again), or to be changed. */
type TargetState = 'done' | 'gave-up' | 'read' | 'change';

/** Calls of read_file per file at most: a 6,000-line file takes three. */
const MAX_READS = 8;

export function targetState(target: Target, facts: CoderFacts): TargetState {
  const changes = facts.changes.get(target.path) ?? [];
  const last = changes.at(-1);
  if (last && succeeded(last)) return 'done';
  // A change that failed is retried once (after reading the file again), then given up.
  if (changes.length >= 2) return 'gave-up';
  const view = facts.views.get(target.path);
  const canRead =
    (facts.reads.get(target.path) ?? 0) < MAX_READS && (facts.readFailures.get(target.path) ?? 0) === 0;
  if (view) return view.nextMissing() !== undefined && canRead ? 'read' : 'change';
  // Not seen since its last change: an existing file, or one whose change failed, is read first.
  if ((last || target.conflicted || exists(target.path, facts)) && canRead) return 'read';
  return 'change';
}

export function exists(path: string, facts: CoderFacts): boolean {
  if (facts.views.has(path)) return true;
  return (facts.listed?.has(path) ?? false) && (facts.readFailures.get(path) ?? 0) === 0;
}

/** The read_file call that shows the next unseen part of a target. */
export function readCall(path: string, facts: CoderFacts): PlannedCall {
  const next = facts.views.get(path)?.nextMissing();
  return { name: 'read_file', input: next && next > 1 ? { path, startLine: next } : { path } };
}

/**
 * The edit_file or write_file call that brings a target to its content, or undefined when it
 * already reads so. With `miss`, the edit's oldText is copied with read_file's line numbers.
 */
export function changeCall(target: Target, facts: CoderFacts, miss: boolean): PlannedCall | undefined {
  const current = facts.views.get(target.path)?.content();
  const desired = target.desired(current);
  if (desired === undefined || desired === current) return undefined;
  const edit =
    current === undefined ? undefined : editFor(current, desired, target.conflicted ? 1 : undefined);
  if (!edit) return { name: 'write_file', input: { path: target.path, content: desired } };
  const oldText = miss ? withLineNumbers(current!, edit.oldText) : edit.oldText;
  return { name: 'edit_file', input: { path: target.path, oldText, newText: edit.newText } };
}

/** The first failed check's output, when the check failed (and it ran). */
export function failedCheckOutput(facts: CoderFacts): string | undefined {
  const failed = facts.checks.find((c) => succeeded(c) && !checkPassed(c));
  return failed?.result?.content;
}
