/**
 * What AutoCoder proposes as a project's setup command, from the files at the repository's root:
 * the lockfile of its package manager. Only ever a proposal: nothing runs until the person accepts it.
 */

interface Rule {
  /** A root file name, or a test on it. */
  file: string | RegExp;
  command: (names: ReadonlySet<string>) => string;
}

/** In order of preference: a JavaScript project's lockfile first, then Python, Go, Rust, Ruby, PHP. */
const RULES: readonly Rule[] = [
  { file: 'package-lock.json', command: () => 'npm ci' },
  { file: 'npm-shrinkwrap.json', command: () => 'npm ci' },
  { file: 'pnpm-lock.yaml', command: () => 'pnpm install --frozen-lockfile' },
  {
    file: 'yarn.lock',
    // Yarn 2+ keeps its settings in .yarnrc.yml and spells "frozen" --immutable.
    command: (names) =>
      names.has('.yarnrc.yml') ? 'yarn install --immutable' : 'yarn install --frozen-lockfile',
  },
  { file: 'bun.lock', command: () => 'bun install --frozen-lockfile' },
  { file: 'bun.lockb', command: () => 'bun install --frozen-lockfile' },
  { file: 'uv.lock', command: () => 'uv sync --frozen' },
  { file: 'poetry.lock', command: () => 'poetry install --no-interaction' },
  {
    file: 'requirements.txt',
    command: () => 'python3 -m venv .venv && .venv/bin/pip install -r requirements.txt',
  },
  {
    file: /^requirements[\w.-]*\.txt$/,
    command: (names) => {
      const file = [...names].filter((name) => /^requirements[\w.-]*\.txt$/.test(name)).sort()[0];
      return `python3 -m venv .venv && .venv/bin/pip install -r ${file}`;
    },
  },
  { file: 'go.sum', command: () => 'go mod download' },
  { file: 'Cargo.lock', command: () => 'cargo fetch --locked' },
  { file: 'Gemfile.lock', command: () => 'bundle install' },
  { file: 'composer.lock', command: () => 'composer install --no-interaction' },
];

const matches = (rule: Rule, name: string) =>
  typeof rule.file === 'string' ? rule.file === name : rule.file.test(name);

/** The setup command the root's files call for, and the file that says so; null when none does. */
export function proposeSetup(rootNames: readonly string[]): { command: string; because: string } | null {
  const names = new Set(rootNames);
  for (const rule of RULES) {
    const file = [...names].sort().find((name) => matches(rule, name));
    if (file) return { command: rule.command(names), because: file };
  }
  return null;
}

/** The root files whose content keys the dependency cache: every lockfile the rules know. */
export function lockfilesOf(rootNames: readonly string[]): string[] {
  return rootNames.filter((name) => RULES.some((rule) => matches(rule, name))).sort();
}
