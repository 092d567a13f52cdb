import path from 'node:path';
import { parseSync } from 'oxc-parser';

const CONFIG_NAME = /^[tj]sconfig.*\.json$/;

/**
 * A tsconfig as the mirror should hold it. `extends` that names an installed package
 * (`@tsconfig/node20/tsconfig.json`) cannot be read, since packages are not in git, and the
 * resolver then refuses every request of the files under it; that entry is dropped, so the
 * file's own `paths` and `baseUrl` still apply. Returns the content to write and, when something
 * was dropped, why.
 */
export function mirrorConfig(file: string, content: Buffer): { content: Buffer; warning?: string } {
  if (!CONFIG_NAME.test(path.posix.basename(file))) return { content };
  const text = content.toString('utf8');
  if (!text.includes('extends')) return { content };
  const value = parseJsonc(text);
  if (!isObject(value) || value.extends === undefined) return { content };
  const entries = Array.isArray(value.extends) ? value.extends : [value.extends];
  const kept = entries.filter((entry) => typeof entry === 'string' && isPathLike(entry));
  if (kept.length === entries.length) return { content };
  const dropped = entries.filter((entry) => !kept.includes(entry));
  if (kept.length === 0) delete value.extends;
  else value.extends = Array.isArray(value.extends) ? kept : kept[0];
  return {
    content: Buffer.from(JSON.stringify(value)),
    warning: `${file}: extends ${dropped.map((entry) => JSON.stringify(entry)).join(', ')} is not in the repository and was ignored`,
  };
}

function isPathLike(specifier: string): boolean {
  return specifier.startsWith('.') || specifier.startsWith('/');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Node = { type: string; [key: string]: unknown };

/** Deeper than this, a config is not parsed here: oxc recurses natively, and this is the server's process. */
const MAX_DEPTH = 256;

function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b || c === 0x28) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d || c === 0x29) depth--;
  }
  return max;
}

/** JSON with comments and trailing commas (tsconfig's dialect), read as a JavaScript expression. */
export function parseJsonc(text: string): unknown {
  if (nestingDepth(text) > MAX_DEPTH) return undefined;
  const result = parseSync('tsconfig.js', `(${text}\n)`, { lang: 'js' });
  if (result.errors.length > 0) return undefined;
  const statement = result.program.body[0] as Node | undefined;
  return statement?.type === 'ExpressionStatement' ? toValue(statement.expression as Node) : undefined;
}

function toValue(node: Node): unknown {
  switch (node.type) {
    case 'ParenthesizedExpression':
      return toValue(node.expression as Node);
    case 'Literal':
      return node.value;
    case 'ArrayExpression':
      return (node.elements as (Node | null)[]).map((element) => (element ? toValue(element) : null));
    case 'ObjectExpression': {
      const object: Record<string, unknown> = {};
      for (const property of node.properties as Node[]) {
        const key = property.key as Node | undefined;
        const name =
          key?.type === 'Literal' ? String(key.value) : key?.type === 'Identifier' ? key.name : null;
        if (property.type === 'Property' && typeof name === 'string')
          object[name] = toValue(property.value as Node);
      }
      return object;
    }
    case 'UnaryExpression':
      return node.operator === '-' ? -(toValue(node.argument as Node) as number) : undefined;
    default:
      return undefined;
  }
}
