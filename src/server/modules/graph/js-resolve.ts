import { ResolverFactory } from 'oxc-resolver';
import type { Mirror } from './mirror.js';

/**
 * Resolution as TypeScript's bundler mode and Node do it: the nearest tsconfig (its `paths`,
 * `baseUrl`, `extends` and project references), `.js` written for a `.ts` file, index files,
 * package.json `exports`, `imports` and main fields, ESM and CommonJS conditions.
 */
const OPTIONS = {
  tsconfig: 'auto' as const,
  extensions: ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'],
  extensionAlias: {
    '.js': ['.ts', '.tsx', '.d.ts', '.js', '.jsx'],
    '.jsx': ['.tsx', '.jsx'],
    '.mjs': ['.mts', '.d.mts', '.mjs'],
    '.cjs': ['.cts', '.d.cts', '.cjs'],
  },
  conditionNames: ['types', 'import', 'require', 'node', 'default'],
  mainFields: ['types', 'typings', 'module', 'main'],
  mainFiles: ['index'],
  builtinModules: true,
  symlinks: false,
  nodePath: false,
};

/** A request resolved to a file of the repository, or to nothing in it (a package, a builtin, a typo). */
export type Resolution = string | null;

export class JsResolver {
  #resolver = new ResolverFactory(OPTIONS);
  #fallback: ResolverFactory | undefined;
  /** Set when a tsconfig could not be used (it extends a package that is not in the repository). */
  configWarning: string | undefined;

  constructor(private readonly mirror: Mirror) {}

  /** Forgets what the resolver read from disk: after files were added or removed, or a JSON file changed. */
  clear() {
    this.#resolver.clearCache();
    this.#fallback?.clearCache();
    this.configWarning = undefined;
  }

  resolve(fromFile: string, request: string): Resolution {
    const absolute = `${this.mirror.root}/${fromFile}`;
    let result = this.#resolver.resolveFileSync(absolute, request);
    if (result.error && isConfigError(result.error)) {
      // A tsconfig that extends an installed package (not in git) cannot be read: resolve without it.
      this.configWarning ??= `tsconfig ignored: ${result.error.replaceAll(this.mirror.root, '.')}`;
      this.#fallback ??= new ResolverFactory({ ...OPTIONS, tsconfig: undefined });
      result = this.#fallback.resolveFileSync(absolute, request);
    }
    if (!result.path) return null;
    const rel = this.mirror.relative(result.path);
    if (!rel || (rel.includes('node_modules') && rel.split('/').includes('node_modules'))) return null;
    return rel;
  }
}

function isConfigError(message: string): boolean {
  return /tsconfig/i.test(message) && !/Cannot find module/i.test(message);
}
