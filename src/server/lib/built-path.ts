import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A build output (dist/<name>), found from source (src/server/lib) and from the bundle (dist/server). */
export function builtPath(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dist = here.endsWith(path.join('dist', 'server'))
    ? path.resolve(here, '..')
    : path.resolve(here, '../../../dist');
  return path.join(dist, name);
}
