import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version in package.json, found from source and from the bundled server alike. */
export function readVersion(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(path.resolve(here, candidate), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'autocoder' && pkg.version) return pkg.version;
    } catch {
      // not at this depth; try the next
    }
  }
  return '0.0.0';
}
