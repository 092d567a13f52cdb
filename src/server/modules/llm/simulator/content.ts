import type { TaskNames } from './plan.js';
import type { TaskInfo } from './prompt.js';

/** The first line of every file the simulator writes: nobody should mistake it for a model's work. */
export const SIMULATOR_NOTICE =
  "Written by AutoCoder's offline simulator: scripted output, not by an AI model.";

const LANGUAGES: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  jsx: 'javascript',
  md: 'markdown',
  py: 'python',
  json: 'json',
  css: 'css',
  html: 'html',
  sh: 'shell',
  yml: 'yaml',
  yaml: 'yaml',
  go: 'go',
  rs: 'rust',
};

function extensionOf(path: string): string {
  return /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
}

export function languageOf(path: string): string {
  return LANGUAGES[extensionOf(path)] ?? 'text';
}

/** A one-line comment in the file's language; undefined where comments do not exist (JSON). */
export function commentLine(path: string, text: string): string | undefined {
  const ext = extensionOf(path);
  const flat = text.replace(/\s+/g, ' ').trim().slice(0, 300);
  if (ext === 'json') return undefined;
  if (['md', 'html'].includes(ext)) return `<!-- ${flat.replace(/--+>?/g, '-')} -->`;
  if (['py', 'sh', 'yml', 'yaml', 'rb', 'toml'].includes(ext)) return `# ${flat}`;
  return `// ${flat}`;
}

/** The description as prose for a comment or a page: no simulator markers, no comment terminators. */
function prose(task: TaskInfo): string {
  return task.description
    .replace(/\[simulate:[^\]]*\]/gi, '')
    .replace(/\*\//g, '*\\/')
    .replace(/`{3,}/g, '')
    .trim()
    .slice(0, 600);
}

export function mainModule(task: TaskInfo, names: TaskNames): string {
  const about = prose(task);
  const doc = [`/**`, ` * ${task.title.replace(/\*\//g, '*\\/')}`];
  if (about) doc.push(' *', ...about.split('\n').map((l) => ` * ${l}`.trimEnd()));
  doc.push(' */');
  return [
    `// ${SIMULATOR_NOTICE}`,
    '',
    ...doc,
    `export function ${names.fn}(input: string): string {`,
    '  const value = input.trim();',
    `  return value === '' ? '' : ${JSON.stringify(`${task.title}: `)} + value;`,
    '}',
    '',
  ].join('\n');
}

export function listExtension(names: TaskNames): string {
  return [
    '',
    `/** Applies ${names.fn} to each input, skipping blank ones. */`,
    `export function ${names.fn}All(inputs: readonly string[]): string[] {`,
    `  return inputs.filter((input) => input.trim() !== '').map((input) => ${names.fn}(input));`,
    '}',
    '',
  ].join('\n');
}

export function testModule(task: TaskInfo, names: TaskNames): string {
  return [
    `// ${SIMULATOR_NOTICE}`,
    "import assert from 'node:assert/strict';",
    "import { test } from 'node:test';",
    `import { ${names.fn} } from '../src/${names.slug}.js';`,
    '',
    `test('${names.fn} labels trimmed input', () => {`,
    `  assert.equal(${names.fn}('  value  '), ${JSON.stringify(`${task.title}: value`)});`,
    '});',
    '',
    `test('${names.fn} returns an empty string for blank input', () => {`,
    `  assert.equal(${names.fn}('   '), '');`,
    '});',
    '',
  ].join('\n');
}

export function docsPage(task: TaskInfo, names: TaskNames): string {
  const about = prose(task) || 'No description was given for this task.';
  const lines = [`<!-- ${SIMULATOR_NOTICE} -->`, '', `# ${task.title}`, '', about, ''];
  if (task.category !== 'docs') {
    // Indented code, not a fence: the page travels inside a JSON string in a fenced answer.
    lines.push(
      '## API',
      '',
      `    ${names.fn}(input: string): string`,
      '',
      'Returns the trimmed input, labelled.',
      '',
    );
  }
  return lines.join('\n');
}

export function docsUsage(task: TaskInfo): string {
  return [
    '',
    '## Usage',
    '',
    `1. Read the overview of "${task.title.replace(/[<>]/g, '')}" above.`,
    '2. Follow the steps it describes in your own checkout.',
    '3. Open an issue when something here is out of date.',
    '',
  ].join('\n');
}

/** Appends `addition` unless the file already ends with it (a retried step must not append twice). */
export function appendOnce(base: string, addition: string): string {
  if (base.includes(addition.trim())) return base;
  return `${base.replace(/\n*$/, '\n')}${addition}`;
}

/** Adds a blank-input guard to a TypeScript module once (its name is the marker). */
export function withValidationGuard(base: string, names: TaskNames, iteration: number): string {
  const guard = `assertValid${names.fn[0]!.toUpperCase()}${names.fn.slice(1)}Input`;
  if (base.includes(`function ${guard}(`)) return base;
  const addition = [
    '',
    `/** Rejects blank input (added in answer to review iteration ${iteration}). */`,
    `export function ${guard}(input: string): string {`,
    `  if (input.trim() === '') throw new TypeError('${names.fn}: input must not be blank');`,
    '  return input;',
    '}',
    '',
  ].join('\n');
  return appendOnce(base, addition);
}
