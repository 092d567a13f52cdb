// The JS/TS import parser of the graph, in a process of its own (see js-imports.ts). oxc's parser
// and serialiser recurse: a file nested deeply enough (100,000 `+` in one expression, 10,000
// brackets) overflows the native stack, and that ends the process it runs in. Here it ends only
// this one; the server answers that file with a warning and starts another. Plain JavaScript, so it
// runs the same beside the sources and beside the bundle.
//
// Protocol (IPC, batches answered in order — a crash is on the first unanswered batch; the server
// sends that batch's files again one by one to find the culprit):
//   in:  { id, files: [{ path, source }] }
//   out: { id, results: [{ requests: string[], error?: string }] } (one per file, in order)
// The native binding, not the package's `parseSync`: that one also copies the whole syntax tree (as
// JSON, ~15 times the file's size) into a string, for every file; here it is read only when the
// tree is walked (`require`). A result's unread native memory is freed when the result is
// collected, which the module records read here make happen between batches.
import { parseSync } from 'oxc-parser/src-js/bindings';
import { jsonParseAst } from 'oxc-parser/src-js/wrap';

function parserOptions(path) {
  if (/\.d\.[cm]?ts$/.test(path)) return { lang: 'dts', sourceType: 'module' };
  if (path.endsWith('.tsx')) return { lang: 'tsx', sourceType: 'module' };
  if (/\.[cm]?ts$/.test(path)) return { lang: 'ts', sourceType: 'module' };
  if (path.endsWith('.cjs')) return { lang: 'jsx', sourceType: 'commonjs' };
  return { lang: 'jsx', sourceType: 'unambiguous' };
}

/**
 * The imports of a file, from oxc's module record: `import`, `export … from` (re-exports) and
 * `import()` whose argument is a string; from the syntax tree, only when the text mentions them,
 * `require('…')` and TypeScript's `import x = require('…')`.
 */
function extract(path, source) {
  const result = parseSync(path, source, parserOptions(path));
  const fatal = result.errors.find((error) => error.severity === 'Error');
  if (fatal) return { requests: [], error: fatal.message };
  const requests = new Set();
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
  if (walk) collectFromTree(jsonParseAst(result.program), requests);
  requests.delete('');
  return { requests: [...requests] };
}

/** A quoted string or a template without substitutions; null for other expressions, undefined with escapes. */
function stringLiteral(text) {
  const trimmed = text.trim();
  const quote = trimmed[0];
  if ((quote !== "'" && quote !== '"' && quote !== '`') || trimmed.at(-1) !== quote || trimmed.length < 2) {
    return null;
  }
  const body = trimmed.slice(1, -1);
  if (quote === '`' && body.includes('${')) return null;
  return body.includes('\\') ? undefined : body;
}

/** `require('x')`, `import x = require('x')`, and `import('x')` whose string has escapes. */
function collectFromTree(root, into) {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) if (item && typeof item === 'object') stack.push(item);
      continue;
    }
    if (!node || typeof node !== 'object') continue;
    if (node.type === 'CallExpression') {
      const { callee, arguments: args } = node;
      if (callee?.type === 'Identifier' && callee.name === 'require' && args?.length === 1)
        add(into, args[0]);
    } else if (node.type === 'ImportExpression') {
      add(into, node.source);
    } else if (node.type === 'TSExternalModuleReference') {
      add(into, node.expression);
    }
    for (const key in node) {
      const child = node[key];
      if (child && typeof child === 'object') stack.push(child);
    }
  }
}

function add(into, node) {
  if (node?.type === 'Literal' && typeof node.value === 'string') into.add(node.value);
  else if (node?.type === 'TemplateLiteral' && node.expressions.length === 0 && node.quasis.length === 1) {
    const cooked = node.quasis[0].value.cooked;
    if (typeof cooked === 'string') into.add(cooked);
  }
}

function extractOrError(path, source) {
  try {
    return extract(path, source);
  } catch (error) {
    return { requests: [], error: String(error?.message ?? error) };
  }
}

process.on('message', ({ id, files }) => {
  process.send({ id, results: files.map((file) => extractOrError(file.path, file.source)) });
});

process.on('disconnect', () => process.exit(0));
