import type { HighlighterCore, LanguageRegistration } from 'shiki/core';

/**
 * Syntax highlighting with Shiki, loaded on first use: the core, the JavaScript regex engine (no
 * WebAssembly, nothing fetched at run time) and two themes (light and dark), then each language's grammar in a
 * chunk of its own as a file of that language is first shown. Only tokens leave this module
 * (text and a colour): the caller renders them as text, never as HTML.
 */

type Grammar = Promise<{ default: LanguageRegistration[] }>;

/** The languages the diff API names (`workspace/language.ts`), each loaded from its own chunk. */
const GRAMMARS: Record<string, () => Grammar> = {
  typescript: () => import('shiki/langs/typescript.mjs'),
  tsx: () => import('shiki/langs/tsx.mjs'),
  javascript: () => import('shiki/langs/javascript.mjs'),
  jsx: () => import('shiki/langs/jsx.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  markdown: () => import('shiki/langs/markdown.mjs'),
  mdx: () => import('shiki/langs/mdx.mjs'),
  python: () => import('shiki/langs/python.mjs'),
  ruby: () => import('shiki/langs/ruby.mjs'),
  go: () => import('shiki/langs/go.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  java: () => import('shiki/langs/java.mjs'),
  kotlin: () => import('shiki/langs/kotlin.mjs'),
  swift: () => import('shiki/langs/swift.mjs'),
  c: () => import('shiki/langs/c.mjs'),
  cpp: () => import('shiki/langs/cpp.mjs'),
  csharp: () => import('shiki/langs/csharp.mjs'),
  php: () => import('shiki/langs/php.mjs'),
  bash: () => import('shiki/langs/shellscript.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
  toml: () => import('shiki/langs/toml.mjs'),
  ini: () => import('shiki/langs/ini.mjs'),
  html: () => import('shiki/langs/html.mjs'),
  xml: () => import('shiki/langs/xml.mjs'),
  css: () => import('shiki/langs/css.mjs'),
  scss: () => import('shiki/langs/scss.mjs'),
  less: () => import('shiki/langs/less.mjs'),
  sql: () => import('shiki/langs/sql.mjs'),
  vue: () => import('shiki/langs/vue.mjs'),
  svelte: () => import('shiki/langs/svelte.mjs'),
  graphql: () => import('shiki/langs/graphql.mjs'),
  protobuf: () => import('shiki/langs/proto.mjs'),
  dockerfile: () => import('shiki/langs/docker.mjs'),
  makefile: () => import('shiki/langs/make.mjs'),
};

/** GitHub's high-contrast themes: their colours keep 4.5:1 on the diff's tinted rows (WCAG AA). */
const THEMES = { light: 'github-light-high-contrast', dark: 'github-dark-high-contrast' } as const;
/** Longer lines (minified code) are shown plain: tokenising them costs more than it shows. */
const MAX_LINE_CHARS = 2000;

/** A piece of a line in one colour per theme. */
export interface CodeToken {
  content: string;
  color?: string | undefined;
  /** The colour under the dark theme. */
  darkColor?: string | undefined;
  /** Shiki's FontStyle bits: 1 italic, 2 bold, 4 underline. */
  fontStyle?: number | undefined;
}

let core: Promise<HighlighterCore> | null = null;
/** Per language of the API, the grammar's own name once loaded. */
const loaded = new Map<string, Promise<string>>();

function highlighter(): Promise<HighlighterCore> {
  core ??= Promise.all([import('shiki/core'), import('shiki/engine/javascript')]).then(
    ([{ createHighlighterCore }, { createJavaScriptRegexEngine }]) =>
      createHighlighterCore({
        themes: [
          import('shiki/themes/github-light-high-contrast.mjs'),
          import('shiki/themes/github-dark-high-contrast.mjs'),
        ],
        langs: [],
        // Grammars' patterns the engine cannot translate are skipped rather than failing the file.
        engine: createJavaScriptRegexEngine({ forgiving: true }),
      }),
  );
  return core;
}

export const canHighlight = (language: string) => Object.hasOwn(GRAMMARS, language);

function grammarName(shiki: HighlighterCore, language: string): Promise<string> {
  let name = loaded.get(language);
  if (!name) {
    const load = GRAMMARS[language];
    if (!load) return Promise.reject(new Error(`No grammar for ${language}`));
    name = load().then(async ({ default: registrations }) => {
      await shiki.loadLanguage(registrations);
      // The language itself comes last, after the languages it embeds.
      return registrations.at(-1)?.name ?? language;
    });
    name.catch(() => loaded.delete(language));
    loaded.set(language, name);
  }
  return name;
}

/**
 * Each line of `code` as coloured tokens, or null for a language without a grammar here. The
 * lines of the answer are the lines of `code` split at "\n".
 */
export async function tokenize(code: string, language: string): Promise<CodeToken[][] | null> {
  if (!canHighlight(language)) return null;
  const shiki = await highlighter();
  const lang = await grammarName(shiki, language);
  const lines = shiki.codeToTokensWithThemes(code, {
    lang,
    themes: THEMES,
    tokenizeMaxLineLength: MAX_LINE_CHARS,
  });
  return lines.map((line) =>
    line.map(({ content, variants }) => ({
      content,
      color: variants.light?.color,
      darkColor: variants.dark?.color,
      fontStyle: variants.light?.fontStyle,
    })),
  );
}
