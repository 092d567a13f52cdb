import { type ParserOptions, parse } from 'oxc-parser';

/** What a JS/TS file imports: the module requests, as written, in order of first appearance. */
export interface ExtractedImports {
  requests: string[];
  /** Set when the file does not parse: it is then a node without edges. */
  error?: string;
}

const JS_EXTENSIONS = /\.(?:[cm]?[jt]sx?)$/;

export function isJsFile(path: string): boolean {
  return JS_EXTENSIONS.test(path);
}

function parserOptions(path: string): ParserOptions {
  if (/\.d\.[cm]?ts$/.test(path)) return { lang: 'dts', sourceType: 'module' };
  if (path.endsWith('.tsx')) return { lang: 'tsx', sourceType: 'module' };
  if (/\.[cm]?ts$/.test(path)) return { lang: 'ts', sourceType: 'module' };
  if (path.endsWith('.cjs')) return { lang: 'jsx', sourceType: 'commonjs' };
  return { lang: 'jsx', sourceType: 'unambiguous' };
}

/**
 * The imports of a JS/TS file, from oxc's module record: `import`, `export … from` (re-exports),
 * `import()` whose argument is a string, and — from the syntax tree, only when the text mentions it
 * — `require('…')` and TypeScript's `import x = require('…')`. Parsing runs on libuv's thread pool.
 */
export async function extractJsImports(path: string, source: string): Promise<ExtractedImports> {
  const result = await parse(path, source, parserOptions(path));
  const fatal = result.errors.find((error) => error.severity === 'Error');
  if (fatal) return { requests: [], error: fatal.message };
  const requests = new Set<string>();
  const { module } = result;
  for (const entry of module.staticImports) requests.add(entry.moduleRequest.value);
  for (const statement of module.staticExports) {
    for (const entry of statement.entries) if (entry.moduleRequest) requests.add(entry.moduleRequest.value);
  }
  let walk = source.includes('require');
  for (const dynamic of module.dynamicImports) {
    const literal = stringLiteral(source.slice(dynamic.moduleRequest.start, dynamic.moduleRequest.end));
    if (literal === undefined) walk = true;
    else if (literal !== null) requests.add(literal);
  }
  if (walk) collectFromTree(result.program, requests);
  requests.delete('');
  return { requests: [...requests] };
}

/**
 * The value of a quoted string or of a template without substitutions, read from the source; null
 * for any other expression, and `undefined` when it has escapes (the syntax tree decodes those).
 */
function stringLiteral(text: string): string | null | undefined {
  const trimmed = text.trim();
  const quote = trimmed[0];
  if ((quote !== "'" && quote !== '"' && quote !== '`') || trimmed.at(-1) !== quote || trimmed.length < 2) {
    return null;
  }
  const body = trimmed.slice(1, -1);
  if (quote === '`' && body.includes('${')) return null;
  return body.includes('\\') ? undefined : body;
}

type AstNode = { type?: unknown; [key: string]: unknown };

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null;
}

/** Walks the tree for `require('x')`, `import x = require('x')` and `import('x')` with escapes. */
function collectFromTree(root: unknown, into: Set<string>) {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) if (isNode(item)) stack.push(item);
      continue;
    }
    if (!isNode(node)) continue;
    if (node.type === 'CallExpression') {
      const callee = node.callee as AstNode | undefined;
      const args = node.arguments as AstNode[] | undefined;
      if (callee?.type === 'Identifier' && callee.name === 'require' && args?.length === 1) {
        const value = literalValue(args[0]);
        if (value !== null) into.add(value);
      }
    } else if (node.type === 'ImportExpression') {
      const value = literalValue(node.source as AstNode | undefined);
      if (value !== null) into.add(value);
    } else if (node.type === 'TSExternalModuleReference') {
      const value = literalValue(node.expression as AstNode | undefined);
      if (value !== null) into.add(value);
    }
    for (const key in node) {
      const child = node[key];
      if (isNode(child)) stack.push(child);
    }
  }
}

function literalValue(node: AstNode | undefined): string | null {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral') {
    const quasis = node.quasis as { value: { cooked: string | null } }[];
    if ((node.expressions as unknown[]).length === 0 && quasis.length === 1)
      return quasis[0]?.value.cooked ?? null;
  }
  return null;
}
