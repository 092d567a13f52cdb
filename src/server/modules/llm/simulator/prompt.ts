import { AGENT_TYPES, type AgentType } from '@/contracts/pipeline.js';

export const TASK_CATEGORIES = ['feature', 'bug', 'refactor', 'docs', 'test', 'chore'] as const;
export type TaskCategory = (typeof TASK_CATEGORIES)[number];

export interface TaskInfo {
  title: string;
  category: TaskCategory;
  description: string;
}

/** What the simulator reads from an agent's prompts. Every field has a fallback: prompts may change. */
export interface PromptInfo {
  agent: AgentType | undefined;
  task: TaskInfo;
  subtask?: { index: number; total: number; title: string };
  /** Coder in fix mode: the review iteration being answered. */
  fixIteration?: number;
  findings: string[];
  /** Coder in fix mode: the person's comments on lines of the diff ("path:line — body"). */
  comments: string[];
  reviewIteration: number;
  changedFiles: string[];
  /** Coder: the `## Files changed so far in this run` list (deleted ones left out). */
  changedSoFar: string[];
  currentFiles: Array<{ path: string; content: string }>;
  /** Coder: files left with conflict markers by a merge, to be answered resolved. */
  conflicts: Array<{ path: string; content: string }>;
  /**
   * The paths of the files with conflict markers: those of `conflicts`, or, in the tool-using
   * coder's prompt (which lists them without content), the section's list items.
   */
  conflictPaths: string[];
  /** The `## Failing check` section of a coder's fix prompt (the repository's check failed), if any. */
  failedCheck?: string | undefined;
}

const FALLBACK_TITLE = 'Untitled task';

/** `# Role: coder` on the system prompt's first line. */
export function agentOf(system: string): AgentType | undefined {
  const first = system.trimStart().split('\n', 1)[0] ?? '';
  const role = /^#\s*Role:\s*(\w+)/i.exec(first)?.[1]?.toLowerCase();
  return AGENT_TYPES.find((agent) => agent === role);
}

function line(prompt: string, label: string): string | undefined {
  const match = new RegExp(`^\\s*${label}:[ \\t]*(.*)$`, 'im').exec(prompt);
  return match?.[1]?.trim() || undefined;
}

/**
 * The lines of a `## Heading` section (the heading may go on, as in "## Review findings (score 55/100)"), up to
 * the next `## ` heading outside a code fence.
 */
function section(prompt: string, heading: string): string[] {
  const lines = prompt.split('\n');
  const start = lines.findIndex((l) => l.trim().toLowerCase().startsWith(`## ${heading.toLowerCase()}`));
  if (start < 0) return [];
  const out: string[] = [];
  let fence: string | undefined;
  for (const l of lines.slice(start + 1)) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(l)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
    } else if (!fence && /^##\s/.test(l)) break;
    out.push(l);
  }
  return out;
}

function description(prompt: string): string {
  const lines = prompt.split('\n');
  const at = lines.findIndex((l) => /^\s*Task description:/i.test(l));
  if (at < 0) return '';
  const out = [lines[at]!.replace(/^\s*Task description:\s*/i, '')];
  for (const l of lines.slice(at + 1)) {
    if (/^#{1,6}\s/.test(l) || /^(Task \w+|Subtask\s+\d+\s*\/\s*\d+|Mode|Review iteration):/i.test(l)) break;
    out.push(l);
  }
  const text = out.join('\n').trim();
  return text === '(none)' ? '' : text;
}

function bulletItems(lines: string[]): string[] {
  const BULLET = /^([-*•]|\d+[.)])\s+/;
  const trimmed = lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('```'));
  // When the section is a list, prose around it is not an item.
  const items = trimmed.some((l) => BULLET.test(l)) ? trimmed.filter((l) => BULLET.test(l)) : trimmed;
  return (
    items
      .map((l) => l.replace(BULLET, '').trim())
      // "(no files changed)" and the like are placeholders, not items.
      .filter((l) => l && !/^\(.*\)$/.test(l))
  );
}

/** `### path` headings, each followed by a fenced block holding the file (possibly empty). */
function currentFiles(lines: string[]): Array<{ path: string; content: string }> {
  const files: Array<{ path: string; content: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const heading = /^###\s+`?([^`\s]+)`?/.exec(lines[i]!);
    if (!heading) continue;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === '') j++;
    const open = /^\s*(`{3,}|~{3,})/.exec(lines[j] ?? '')?.[1];
    if (!open) {
      files.push({ path: heading[1]!, content: '' });
      continue;
    }
    const body: string[] = [];
    for (j += 1; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!)?.[1];
      if (close && close[0] === open[0] && close.length >= open.length) break;
      body.push(lines[j]!);
    }
    const content = body.join('\n').replace(/\n+$/, '');
    files.push({ path: heading[1]!, content: content ? `${content}\n` : '' });
    i = j;
  }
  return files;
}

export function parsePrompt(system: string, prompt: string): PromptInfo {
  const category = line(prompt, 'Task category')?.toLowerCase();
  const subtask = /^\s*Subtask\s+(\d+)\s*\/\s*(\d+):\s*(.*)$/im.exec(prompt);
  const fix = /^\s*Mode:\s*fix\b(?:\s*\(iteration\s*(\d+)\))?/im.exec(prompt);
  const pathsOf = (items: string[]) =>
    items.map((item) => item.replace(/`/g, '').split(/\s+/)[0] ?? '').filter(Boolean);
  const changed = pathsOf(bulletItems(section(prompt, 'Changed files')));
  const conflictLines = section(prompt, 'Merge conflicts');
  const conflicts = currentFiles(conflictLines);
  const listed = conflictLines.filter((l) => /^\s*[-*•]\s+\S/.test(l));
  return {
    agent: agentOf(system),
    task: {
      title: line(prompt, 'Task title') ?? FALLBACK_TITLE,
      category: TASK_CATEGORIES.find((c) => c === category) ?? 'feature',
      description: description(prompt),
    },
    subtask: subtask
      ? { index: Number(subtask[1]), total: Number(subtask[2]), title: subtask[3]!.trim() }
      : undefined,
    fixIteration: fix ? Number(fix[1] ?? 0) : undefined,
    findings: bulletItems(section(prompt, 'Review findings')),
    comments: bulletItems(section(prompt, 'Comments on lines of the diff')),
    reviewIteration: Number(line(prompt, 'Review iteration')?.match(/\d+/)?.[0] ?? 0),
    changedFiles: changed,
    changedSoFar: bulletItems(section(prompt, 'Files changed so far'))
      .filter((item) => !/\(delete\)\s*$/.test(item))
      .map((item) => item.replace(/\s+\((?:create|modify|edit)\)\s*$/, '').replace(/`/g, ''))
      .filter(Boolean),
    currentFiles: currentFiles(section(prompt, 'Current files')),
    conflicts,
    conflictPaths: conflicts.length ? conflicts.map((c) => c.path) : pathsOf(bulletItems(listed)),
    failedCheck: section(prompt, 'Failing check').join('\n').trim() || undefined,
  };
}
