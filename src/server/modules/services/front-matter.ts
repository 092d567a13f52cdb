import { parse as parseYaml } from 'yaml';

/** What a service file's front matter may say (seed 002); every field is optional. */
export interface ServiceConfig {
  name?: string;
  description?: string;
  /** A port, or `auto`: AutoCoder picks a free port at start and passes it in `PORT`. */
  http?: number | 'auto';
  https?: number | 'auto';
  /** The URL path a preview opens at (`urlPath` in the API). */
  path?: string;
}

export interface ParsedServiceFile {
  config: ServiceConfig;
  /** The file starts with `#!`. */
  shebang: boolean;
  /** A front matter block was found (even one read as empty because it was invalid). */
  hasFrontMatter: boolean;
  /** What follows the front matter (or the shebang when there is none). */
  body: string;
  /** Why (part of) the front matter was ignored; logged as warnings. */
  warnings: string[];
}

/** The three delimiters, and the prefix each line inside the block carries. */
const STYLES = [
  { fence: '---', prefix: '' },
  { fence: '#---', prefix: '#' },
  { fence: '//---', prefix: '//' },
] as const;

const MAX_NAME = 200;
const MAX_DESCRIPTION = 2000;
const MAX_URL_PATH = 2048;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Reads a service file: an optional shebang, then (after blank lines) an optional front matter
 * block in one of the three styles — `---`, `#---` or `//---` — closed by the same delimiter.
 * Inside a comment-prefixed block every non-blank line carries the prefix, and the whitespace
 * after it is trimmed; blank lines are allowed everywhere. Front matter that is not valid YAML,
 * or not a mapping, is a warning and an empty config; a field with a bad value is dropped with a
 * warning of its own.
 */
export function parseServiceFile(content: string): ParsedServiceFile {
  const lines = content.split('\n').map((line) => line.replace(/\r$/, ''));
  const shebang = lines[0]?.startsWith('#!') ?? false;
  const afterShebang = shebang ? 1 : 0;
  let open = afterShebang;
  while (open < lines.length && lines[open]?.trim() === '') open++;
  const fence = lines[open]?.trim();
  const style = STYLES.find((candidate) => candidate.fence === fence);
  const noFrontMatter = (warnings: string[] = []): ParsedServiceFile => ({
    config: {},
    shebang,
    hasFrontMatter: warnings.length > 0,
    body: lines.slice(afterShebang).join('\n'),
    warnings,
  });
  if (!style) return noFrontMatter();
  const close = lines.findIndex((line, index) => index > open && line.trim() === style.fence);
  if (close === -1) return noFrontMatter([`front matter opened with ${style.fence} is never closed`]);

  const body = lines.slice(close + 1).join('\n');
  const inner: string[] = [];
  for (const line of lines.slice(open + 1, close)) {
    if (line.trim() === '') {
      inner.push('');
      continue;
    }
    if (!style.prefix) {
      inner.push(line);
      continue;
    }
    const start = line.trimStart();
    if (!start.startsWith(style.prefix)) {
      return {
        config: {},
        shebang,
        hasFrontMatter: true,
        body,
        warnings: [`front matter line without ${style.prefix}: ${JSON.stringify(line.slice(0, 80))}`],
      };
    }
    inner.push(start.slice(style.prefix.length).trim());
  }

  let data: unknown;
  try {
    data = parseYaml(inner.join('\n'), { schema: 'core', maxAliasCount: 20, uniqueKeys: true });
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : '';
    return {
      config: {},
      shebang,
      hasFrontMatter: true,
      body,
      warnings: [`front matter is not valid YAML (${reason})`],
    };
  }
  if (data === null || data === undefined)
    return { config: {}, shebang, hasFrontMatter: true, body, warnings: [] };
  if (typeof data !== 'object' || Array.isArray(data)) {
    return {
      config: {},
      shebang,
      hasFrontMatter: true,
      body,
      warnings: ['front matter is not a mapping of fields'],
    };
  }
  const { config, warnings } = readConfig(data as Record<string, unknown>);
  return { config, shebang, hasFrontMatter: true, body, warnings };
}

function readConfig(data: Record<string, unknown>): { config: ServiceConfig; warnings: string[] } {
  const config: ServiceConfig = {};
  const warnings: string[] = [];
  const text = (key: 'name' | 'description', max: number) => {
    const value = data[key];
    if (value === undefined || value === null) return;
    if ((typeof value === 'string' || typeof value === 'number') && String(value).length <= max) {
      config[key] = String(value);
    } else warnings.push(`${key} must be text of at most ${max} characters; ignored`);
  };
  text('name', MAX_NAME);
  text('description', MAX_DESCRIPTION);
  for (const key of ['http', 'https'] as const) {
    const value = data[key];
    if (value === undefined || value === null) continue;
    if (value === 'auto') config[key] = 'auto';
    else if (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65_535) {
      config[key] = value as number;
    } else warnings.push(`${key} must be a port (1–65535) or auto; ignored`);
  }
  const urlPath = data.path;
  if (urlPath !== undefined && urlPath !== null) {
    if (
      typeof urlPath === 'string' &&
      urlPath.startsWith('/') &&
      !urlPath.startsWith('//') &&
      urlPath.length <= MAX_URL_PATH &&
      !CONTROL.test(urlPath)
    ) {
      config.path = urlPath;
    } else warnings.push('path must be a URL path starting with /; ignored');
  }
  return { config, warnings };
}

/** A passive service declares a port in front matter and has no script after it (seed 002). */
export function isPassive(parsed: ParsedServiceFile): boolean {
  return (
    parsed.hasFrontMatter &&
    (parsed.config.http !== undefined || parsed.config.https !== undefined) &&
    parsed.body.trim() === ''
  );
}
