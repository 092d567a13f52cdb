// The generated repository of the graph part of `npm run bench` (bench/graph.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git } from '../src/server/lib/git.js';

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A repository shaped like a large application: `src/features/f<i>/` folders (components, hooks,
 * services, a barrel index.ts), `src/shared/` utilities, tsconfig `paths` (`@app/*`, `@shared/*`),
 * 3–8 imports per file — relative, through an alias, a barrel, a package, type-only, now and then a
 * dynamic import() — and bodies of about 1.5 kB.
 */
export function generateRepository(count: number): Map<string, string> {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const files = new Map<string, string>();
  files.set(
    'tsconfig.json',
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          strict: true,
          jsx: 'react-jsx',
          baseUrl: '.',
          paths: { '@app/*': ['src/*'], '@shared/*': ['src/shared/*'] },
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );
  files.set('package.json', JSON.stringify({ name: 'big-app', private: true, type: 'module' }, null, 2));
  const shared = Math.round(count * 0.05);
  const perFeature = 100;
  const features = Math.max(1, Math.round((count - shared) / perFeature));
  const modules: { file: string; spec: string; feature: number }[] = [];
  for (let i = 0; i < shared; i++) {
    modules.push({ file: `src/shared/${i % 2 ? 'utils' : 'lib'}/s${i}.ts`, spec: '', feature: -1 });
  }
  for (let f = 0; f < features && modules.length < count; f++) {
    modules.push({ file: `src/features/f${f}/index.ts`, spec: '', feature: f });
    for (let j = 1; j < perFeature && modules.length < count; j++) {
      const kind = j % 3 === 0 ? 'components' : j % 3 === 1 ? 'services' : 'hooks';
      const ext = kind === 'components' ? 'tsx' : 'ts';
      modules.push({ file: `src/features/f${f}/${kind}/m${j}.${ext}`, spec: '', feature: f });
    }
  }
  const byFeature = new Map<number, typeof modules>();
  for (const module of modules) {
    const list = byFeature.get(module.feature) ?? [];
    list.push(module);
    byFeature.set(module.feature, list);
  }
  const sharedModules = byFeature.get(-1) ?? [];
  const noExt = (file: string) => file.replace(/\.tsx?$/, '');
  const relative = (from: string, to: string) => {
    const rel = path.posix.relative(path.posix.dirname(from), noExt(to));
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  for (const [index, module] of modules.entries()) {
    const imports: string[] = [];
    const wanted = 3 + Math.floor(next() * 6);
    const own = byFeature.get(module.feature) ?? sharedModules;
    for (let k = 0; k < wanted; k++) {
      const roll = next();
      const name = `v${k}`;
      if (roll < 0.35) {
        const target = pick(own);
        if (target.file === module.file) continue;
        imports.push(`import { value as ${name} } from '${relative(module.file, target.file)}';`);
      } else if (roll < 0.55) {
        const target = pick(sharedModules);
        imports.push(
          `import { value as ${name} } from '@shared/${noExt(target.file).slice('src/shared/'.length)}';`,
        );
      } else if (roll < 0.7) {
        const f = Math.floor(next() * features);
        imports.push(`import { value as ${name} } from '@app/features/f${f}';`);
      } else if (roll < 0.8) {
        const target = pick(modules);
        if (target.file === module.file) continue;
        imports.push(
          `import type { Shape as ${name.toUpperCase()} } from '@app/${noExt(target.file).slice(4)}';`,
        );
      } else if (roll < 0.93) {
        imports.push(`import ${name} from '${pick(['react', 'lodash', 'zod', 'date-fns', 'node:path'])}';`);
      } else {
        const target = pick(own);
        imports.push(`const ${name} = () => import('${relative(module.file, target.file)}');`);
      }
    }
    if (module.file.endsWith('/index.ts')) {
      for (const sibling of own.slice(1, 6))
        imports.push(`export * from '${relative(module.file, sibling.file)}';`);
    }
    const body = [
      `export interface Shape { id: number; name: string; tags: string[] }`,
      `export const value = ${index};`,
      `export function compute${index}(items: Shape[], factor = ${index % 7}): number {`,
      '  let total = 0;',
      '  for (const item of items) {',
      '    if (item.tags.includes("skip")) continue;',
      '    total += item.id * factor + item.name.length;',
      '  }',
      '  return total;',
      '}',
      `export class Store${index} {`,
      '  private readonly items = new Map<number, Shape>();',
      '  add(item: Shape): void { this.items.set(item.id, item); }',
      '  find(id: number): Shape | undefined { return this.items.get(id); }',
      '  all(): Shape[] { return [...this.items.values()].sort((a, b) => a.id - b.id); }',
      '}',
      module.file.endsWith('.tsx')
        ? `export const View${index} = (props: { items: Shape[] }) => <ul>{props.items.map((i) => <li key={i.id}>{i.name}</li>)}</ul>;`
        : `export const format${index} = (shape: Shape) => \`\${shape.id}: \${shape.name} [\${shape.tags.join(", ")}]\`;`,
    ];
    files.set(module.file, `${imports.join('\n')}\n\n${body.join('\n')}\n`);
  }
  return files;
}

export async function writeRepository(dir: string, files: Map<string, string>): Promise<number> {
  let bytes = 0;
  const dirs = new Set([...files.keys()].map((file) => path.dirname(path.join(dir, file))));
  for (const folder of dirs) await mkdir(folder, { recursive: true });
  const entries = [...files];
  for (let i = 0; i < entries.length; i += 200) {
    await Promise.all(
      entries.slice(i, i + 200).map(([file, content]) => {
        bytes += Buffer.byteLength(content);
        return writeFile(path.join(dir, file), content);
      }),
    );
  }
  return bytes;
}

export async function commitAll(dir: string, message: string): Promise<string> {
  await git(['add', '-A'], { cwd: dir, timeoutMs: 300_000 });
  // No `gc --auto` in the background (10,000 new objects start one) while the bench measures.
  await git(['-c', 'gc.auto=0', 'commit', '--quiet', '--no-verify', '-m', message], {
    cwd: dir,
    timeoutMs: 300_000,
  });
  return (await git(['rev-parse', 'HEAD'], { cwd: dir })).stdout.toString().trim();
}
