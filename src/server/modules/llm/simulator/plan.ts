import type { TaskCategory, TaskInfo } from './prompt.js';

/** What one planned step writes. The coder recomputes the plan, so planner and coder agree on files. */
export type StepKind = 'create-main' | 'extend-main' | 'create-test' | 'create-docs' | 'extend-docs';

export interface PlannedStep {
  title: string;
  description: string;
  kinds: StepKind[];
}

export interface TaskNames {
  slug: string;
  /** camelCase identifier named after the title. */
  fn: string;
  mainFile: string;
  testFile: string;
  docsFile: string;
}

export function namesOf(task: TaskInfo): TaskNames {
  const words = task.title
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase()
    .split(' ')
    .filter(Boolean)
    .slice(0, 6);
  const slug = words.join('-').slice(0, 48).replace(/-+$/, '') || 'task';
  const camel = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
  const fn = /^[a-z]/.test(camel) ? camel : `task${camel[0]?.toUpperCase() ?? ''}${camel.slice(1)}`;
  return {
    slug,
    fn,
    mainFile: `src/${slug}.ts`,
    testFile: `tests/${slug}.test.ts`,
    docsFile: `docs/${slug}.md`,
  };
}

const FILES: Record<StepKind, keyof Omit<TaskNames, 'slug' | 'fn'>> = {
  'create-main': 'mainFile',
  'extend-main': 'mainFile',
  'create-test': 'testFile',
  'create-docs': 'docsFile',
  'extend-docs': 'docsFile',
};

export function filesOf(kinds: readonly StepKind[], names: TaskNames): string[] {
  return [...new Set(kinds.map((kind) => names[FILES[kind]]))];
}

/** Two or three steps per category, each a small, real change. */
export function planFor(task: TaskInfo): PlannedStep[] {
  const { title } = task;
  const { fn, mainFile, testFile, docsFile } = namesOf(task);
  const steps: Record<TaskCategory, PlannedStep[]> = {
    feature: [
      {
        title: `Create ${mainFile}`,
        description: `Add ${fn}, the core of "${title}".`,
        kinds: ['create-main'],
      },
      {
        title: `Handle lists in ${fn}`,
        description: `Extend ${mainFile} with ${fn}All for several inputs, skipping blank ones.`,
        kinds: ['extend-main'],
      },
      {
        title: `Document ${fn}`,
        description: `Describe the new helper in ${docsFile}.`,
        kinds: ['create-docs'],
      },
    ],
    bug: [
      {
        title: `Fix the behaviour in ${mainFile}`,
        description: `Make ${fn} trim its input so "${title}" no longer reproduces.`,
        kinds: ['create-main'],
      },
      {
        title: 'Add a regression test',
        description: `Cover the fix in ${testFile}.`,
        kinds: ['create-test'],
      },
    ],
    refactor: [
      {
        title: `Extract ${fn}`,
        description: `Move the logic of "${title}" into ${mainFile}.`,
        kinds: ['create-main'],
      },
      {
        title: `Reuse ${fn} for lists`,
        description: `Add ${fn}All in ${mainFile} instead of repeating the loop at call sites.`,
        kinds: ['extend-main'],
      },
    ],
    docs: [
      { title: `Write ${docsFile}`, description: `Document "${title}".`, kinds: ['create-docs'] },
      {
        title: 'Add usage notes',
        description: `Append a usage section to ${docsFile}.`,
        kinds: ['extend-docs'],
      },
    ],
    test: [
      { title: `Create ${mainFile}`, description: `Add ${fn}, the code under test.`, kinds: ['create-main'] },
      { title: `Test ${fn}`, description: `Cover ${fn} in ${testFile}.`, kinds: ['create-test'] },
    ],
    chore: [
      {
        title: `Add ${mainFile}`,
        description: `Add the helper ${fn} for "${title}".`,
        kinds: ['create-main'],
      },
      {
        title: `Tidy ${mainFile}`,
        description: `Add ${fn}All and keep the module self-contained.`,
        kinds: ['extend-main'],
      },
    ],
  };
  return steps[task.category];
}

/** The steps a coder call without a subtask line performs: the whole task in one go. */
export function singleStepFor(task: TaskInfo): StepKind[] {
  if (task.category === 'docs') return ['create-docs'];
  if (task.category === 'test' || task.category === 'bug') return ['create-main', 'create-test'];
  return ['create-main'];
}
