import type { FileChange, ReviewResult, SubtaskList } from '@/contracts/pipeline.js';
import {
  appendOnce,
  commentLine,
  docsPage,
  docsUsage,
  languageOf,
  listExtension,
  mainModule,
  SIMULATOR_NOTICE,
  testModule,
  withValidationGuard,
} from './content.js';
import { filesOf, namesOf, planFor, type StepKind, singleStepFor, type TaskNames } from './plan.js';
import type { PromptInfo, TaskInfo } from './prompt.js';
import type { Scenario } from './scenario.js';

/** One sentence of "thinking" so the stream looks alive, then the JSON the agent's parser expects. */
function reply(thought: string, value: unknown): string {
  // Backticks inside strings are written as \u0060 (still the same JSON), so no file content can close the
  // fence early for a parser that looks for the next ``` .
  const json = JSON.stringify(value, null, 2).replace(/`/g, '\\u0060');
  return `${thought}\n\n\`\`\`json\n${json}\n\`\`\`\n`;
}

export function plannerAnswer(info: PromptInfo): string {
  const names = namesOf(info.task);
  const steps = planFor(info.task);
  const list: SubtaskList = {
    subtasks: steps.map((step, i) => ({
      id: `st-${i + 1}`,
      title: step.title,
      description: step.description,
      order: i + 1,
      files: filesOf(step.kinds, names),
    })),
  };
  const thought = `Simulated planner: splitting "${info.task.title}" (${info.task.category}) into ${steps.length} subtasks.`;
  return reply(thought, list);
}

/** A file as a step leaves it, built on what the prompt shows of it (or on what earlier steps wrote). */
export function writeStep(
  kind: StepKind,
  task: TaskInfo,
  names: TaskNames,
  current: Map<string, string>,
): FileChange {
  const change = (filePath: string, content: string, action: FileChange['action']): FileChange => ({
    filePath,
    language: languageOf(filePath),
    content,
    action,
  });
  const existing = (path: string) => (current.get(path)?.trim() ? 'modify' : 'create');
  switch (kind) {
    case 'create-main':
      return change(names.mainFile, mainModule(task, names), existing(names.mainFile));
    case 'extend-main': {
      const base = current.get(names.mainFile)?.trim()
        ? current.get(names.mainFile)!
        : mainModule(task, names);
      return change(names.mainFile, appendOnce(base, listExtension(names)), 'modify');
    }
    case 'create-test':
      return change(names.testFile, testModule(task, names), existing(names.testFile));
    case 'create-docs':
      return change(names.docsFile, docsPage(task, names), existing(names.docsFile));
    case 'extend-docs': {
      const base = current.get(names.docsFile)?.trim() ? current.get(names.docsFile)! : docsPage(task, names);
      return change(names.docsFile, appendOnce(base, docsUsage(task)), 'modify');
    }
  }
}

/** What a fix step answers: the person's line comments first (each answered with a note), then the findings. */
function fixFindings(info: PromptInfo): string[] {
  const asked = [...info.comments.map((comment) => `line comment ${comment}`), ...info.findings];
  return asked.length ? asked.slice(0, 10) : ['Addressed the review findings.'];
}

/** A planned file as the task's steps would have written it: the base a fix builds on when it is missing. */
export function regeneratedFile(path: string, info: PromptInfo, names: TaskNames): string {
  return path === names.testFile
    ? testModule(info.task, names)
    : path === names.docsFile
      ? docsPage(info.task, names)
      : mainModule(info.task, names);
}

/** The files a fix step touches when it sees none: every file of the plan. */
export function plannedFiles(info: PromptInfo, names: TaskNames): string[] {
  return filesOf(
    planFor(info.task).flatMap((step) => step.kinds),
    names,
  );
}

/** A file as a fix step leaves it: a blank-input guard in code, a note per finding. */
export function fixedContent(path: string, content: string, info: PromptInfo, names: TaskNames): string {
  const iteration = info.fixIteration ?? 0;
  let next = content;
  const isCode = ['typescript', 'javascript'].includes(languageOf(path)) && !/\.test\.|\.spec\./.test(path);
  if (isCode) next = withValidationGuard(next, names, iteration);
  const notes = fixFindings(info)
    .map((finding) => commentLine(path, `Review fix (iteration ${iteration}): ${finding}`))
    .filter((note): note is string => note !== undefined);
  if (notes.length) next = appendOnce(next, `\n${notes.join('\n')}\n`);
  return next;
}

function fixChanges(info: PromptInfo, names: TaskNames, iteration: number): FileChange[] {
  const shown = info.currentFiles
    .filter((f) => f.content.trim() && languageOf(f.path) !== 'json')
    .slice(0, 5);
  const targets = shown.length
    ? shown
    : plannedFiles(info, names).map((path) => ({ path, content: regeneratedFile(path, info, names) }));
  const asIteration = { ...info, fixIteration: iteration };
  return targets.map(({ path, content }) => ({
    filePath: path,
    language: languageOf(path),
    content: fixedContent(path, content, asIteration, names),
    action: 'modify' as const,
  }));
}

/** Both sides of every conflict, ours first, lines the two share once: what a careful merge of independent additions keeps. */
export function resolveConflictMarkers(content: string): string {
  const out: string[] = [];
  let side: 'none' | 'ours' | 'base' | 'theirs' = 'none';
  let ours: string[] = [];
  let theirs: string[] = [];
  for (const line of content.split('\n')) {
    if (side === 'none' && line.startsWith('<<<<<<<')) side = 'ours';
    else if (side !== 'none' && line.startsWith('|||||||')) side = 'base';
    else if (side !== 'none' && line.startsWith('=======')) side = 'theirs';
    else if (side !== 'none' && line.startsWith('>>>>>>>')) {
      out.push(...ours, ...theirs.filter((l) => !ours.includes(l)));
      side = 'none';
      ours = [];
      theirs = [];
    } else if (side === 'ours') ours.push(line);
    else if (side === 'theirs') theirs.push(line);
    else if (side === 'none') out.push(line);
  }
  return out.join('\n');
}

/** What a `check-fix=<path>` scenario has the coder write, for a failed check whose output starts so. */
export function checkFixContent(checkOutput: string): string {
  const firstLine = checkOutput.split('\n')[0]?.slice(0, 200) ?? '';
  return `${SIMULATOR_NOTICE}\nScripted fix (scenario check-fix) for the failing check: ${firstLine}\n`;
}

/** The file a `check-fix=<path>` scenario has the coder create once a failing check reaches it. */
function checkFixChange(path: string, info: PromptInfo): FileChange {
  return {
    filePath: path,
    language: languageOf(path),
    content: checkFixContent(info.failedCheck ?? ''),
    action: 'create',
  };
}

export function coderAnswer(info: PromptInfo, scenario?: Scenario): string {
  const names = namesOf(info.task);
  const current = new Map(info.currentFiles.map((f) => [f.path, f.content]));
  let files: FileChange[];
  let thought: string;
  if (info.conflicts.length > 0) {
    const resolved = info.conflicts.map(({ path, content }) => ({
      filePath: path,
      language: languageOf(path),
      content: resolveConflictMarkers(content),
      action: 'modify' as const,
    }));
    const others = info.currentFiles.length
      ? fixChanges(info, names, info.fixIteration ?? 0).filter(
          (f) => !resolved.some((r) => r.filePath === f.filePath),
        )
      : [];
    files = [...resolved, ...others];
    thought = `Simulated coder: resolving merge conflicts in ${resolved.map((f) => f.filePath).join(', ')}, keeping both sides.`;
  } else if (info.fixIteration !== undefined) {
    files = fixChanges(info, names, info.fixIteration);
    thought = `Simulated coder: answering ${info.findings.length || 1} review finding(s) from iteration ${info.fixIteration}.`;
    if (info.comments.length > 0) {
      thought += ` Line comments answered: ${info.comments.slice(0, 10).join('; ')}.`;
    }
    if (info.failedCheck && scenario?.checkFix) {
      files = [
        ...files.filter((f) => f.filePath !== scenario.checkFix),
        checkFixChange(scenario.checkFix, info),
      ];
      thought += ` The repository's check failed: writing ${scenario.checkFix} as scripted (check-fix).`;
    }
  } else {
    const plan = planFor(info.task);
    const kinds = info.subtask
      ? (plan[info.subtask.index - 1]?.kinds ?? ['extend-main'])
      : singleStepFor(info.task);
    files = kinds.map((kind) => writeStep(kind, info.task, names, current));
    const step = info.subtask ? `subtask ${info.subtask.index}/${info.subtask.total}` : 'the whole task';
    thought = `Simulated coder: ${step} of "${info.task.title}", writing ${files.map((f) => f.filePath).join(', ')}.`;
  }
  return reply(thought, { files });
}

export function reviewerAnswer(info: PromptInfo, scenario: Scenario): string {
  const names = namesOf(info.task);
  const changed = info.changedFiles.length ? info.changedFiles : [names.mainFile];
  const file = changed[0]!;
  const k = info.reviewIteration;
  const failing = k < scenario.reviewFails;
  const result: ReviewResult = failing
    ? {
        passed: false,
        score: 55,
        findings: [
          {
            severity: 'error',
            file,
            line: 1,
            message: `Simulated finding (review iteration ${k}): ${names.fn} must reject blank input before using it.`,
          },
        ],
      }
    : {
        passed: true,
        score: 88,
        findings: [
          {
            severity: 'info',
            file,
            line: 1,
            message: `Simulated review: ${changed.length} changed file(s) fit "${info.task.title}".`,
          },
        ],
      };
  const thought = `Simulated reviewer: checked ${changed.length} changed file(s) at review iteration ${k}.`;
  return reply(thought, result);
}

/** What the simulator says when a prompt has no role line it knows. */
export const GENERIC_ANSWER =
  "This is AutoCoder's offline simulator, not an AI model. It scripts answers for the planner, coder and " +
  'reviewer agents, whose system prompts start with "# Role: planner", "# Role: coder" or "# Role: reviewer".\n';

export function malformedAnswer(info: PromptInfo): string {
  return `Simulated malformed output: the ${info.agent ?? 'agent'} wrote prose instead of the JSON it was asked for, so there is nothing to parse here.\n`;
}

export function answerFor(info: PromptInfo, scenario: Scenario): string {
  switch (info.agent) {
    case 'planner':
      return plannerAnswer(info);
    case 'coder':
      return coderAnswer(info, scenario);
    case 'reviewer':
      return reviewerAnswer(info, scenario);
    default:
      return GENERIC_ANSWER;
  }
}
