/** One Python import statement: `import a.b` (names empty) or `from ..a import b, c` (level 2). */
export interface PythonImport {
  /** Leading dots of a relative import; 0 for an absolute one. */
  level: number;
  /** The dotted module, '' for `from . import x`. */
  module: string;
  /** The names of `from … import names`; empty for `import module`. */
  names: string[];
}

type Token = { kind: 'name' | 'op' | 'newline'; text: string };

const NAME_START = /[A-Za-z_\u00C0-\uFFFF]/;
const NAME_PART = /[A-Za-z0-9_\u00C0-\uFFFF]/;
const STRING_PREFIX = /^(?:[rRbBuUfFtT]{1,2})$/;

/**
 * Python's tokens as far as imports need them: names, operators and logical line ends. Strings
 * (any prefix, triple-quoted or not) and comments are skipped, brackets and `\` join lines, and a
 * `;` or a `:` outside brackets ends a statement (so `if x: import y` is seen).
 */
function* tokens(source: string): Generator<Token> {
  let depth = 0;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i] as string;
    if (c === '\n') {
      i++;
      if (depth === 0) yield { kind: 'newline', text: '\n' };
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && source[i] !== '\n') i++;
      continue;
    }
    if (c === '\\' && source[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '"' || c === "'") {
      i = skipString(source, i);
      continue;
    }
    if (NAME_START.test(c)) {
      const start = i;
      while (i < n && NAME_PART.test(source[i] as string)) i++;
      const text = source.slice(start, i);
      if ((source[i] === '"' || source[i] === "'") && STRING_PREFIX.test(text)) {
        i = skipString(source, i);
        continue;
      }
      yield { kind: 'name', text };
      continue;
    }
    i++;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    if ((c === ';' || c === ':') && depth === 0) {
      // `:=` is an expression, not the end of a clause header.
      if (c === ':' && source[i] === '=') continue;
      yield { kind: 'newline', text: c };
      continue;
    }
    yield { kind: 'op', text: c };
  }
}

/** The index just past the string literal that starts at `start` (its opening quote). */
function skipString(source: string, start: number): number {
  const quote = source[start] as string;
  const triple = source.startsWith(quote.repeat(3), start);
  const close = triple ? quote.repeat(3) : quote;
  let i = start + close.length;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (!triple && c === '\n') return i; // an unterminated string ends at its line
    if (source.startsWith(close, i)) return i + close.length;
    i++;
  }
  return i;
}

/** Every import statement of a Python file, wherever it stands (functions, `try`, `if`). */
export function extractPythonImports(source: string): PythonImport[] {
  const imports: PythonImport[] = [];
  let statement: Token[] = [];
  const flush = () => {
    if (statement.length > 0) parseStatement(statement, imports);
    statement = [];
  };
  for (const token of tokens(source)) {
    if (token.kind === 'newline') flush();
    else statement.push(token);
  }
  flush();
  return imports;
}

function parseStatement(tokens: Token[], into: PythonImport[]) {
  const first = tokens[0];
  if (first?.kind !== 'name') return;
  if (first.text === 'import') {
    // import a.b [as c], d
    let at = 1;
    while (at < tokens.length) {
      const [module, next] = dotted(tokens, at);
      if (!module) return;
      into.push({ level: 0, module, names: [] });
      at = skipAlias(tokens, next);
      if (tokens[at]?.text !== ',') return;
      at++;
    }
    return;
  }
  if (first.text !== 'from') return;
  let at = 1;
  let level = 0;
  while (tokens[at]?.text === '.') {
    level++;
    at++;
  }
  const [module, next] = dotted(tokens, at);
  at = next;
  if (tokens[at]?.text !== 'import' || (!module && level === 0)) return;
  at++;
  const names: string[] = [];
  while (at < tokens.length) {
    const token = tokens[at] as Token;
    if (token.text === '(' || token.text === ')' || token.text === ',') {
      at++;
      continue;
    }
    if (token.text === '*') {
      names.push('*');
      at++;
      continue;
    }
    if (token.kind !== 'name') break;
    names.push(token.text);
    at = skipAlias(tokens, at + 1);
  }
  into.push({ level, module, names });
}

/** A dotted name starting at `at`: the name and the index after it. */
function dotted(tokens: Token[], at: number): [string, number] {
  const parts: string[] = [];
  while (tokens[at]?.kind === 'name' && tokens[at]?.text !== 'import') {
    parts.push(tokens[at]?.text as string);
    at++;
    if (tokens[at]?.text !== '.') break;
    at++;
  }
  return [parts.join('.'), at];
}

function skipAlias(tokens: Token[], at: number): number {
  return tokens[at]?.text === 'as' ? at + 2 : at;
}
