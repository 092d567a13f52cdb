// `npm start`: installs what is missing, builds what is stale, then runs the server
// (which applies migrations and serves on PGlite in the data dir unless DATABASE_URL is set).
// Uses only Node's standard library, so it runs on a fresh clone before `npm install`.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...parts) => path.join(root, ...parts);

function mtime(file) {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

/** Newest modification time under a directory (or of a file). */
function newest(entry) {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const name of readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

async function ensureInstalled() {
  const marker = at('node_modules', '.package-lock.json');
  const lock = at('package-lock.json');
  if (existsSync(marker) && mtime(marker) >= Math.max(mtime(lock), mtime(at('package.json')))) return;
  console.log('[autocoder] installing dependencies…');
  // `npm install` honours the lock file; `npm ci` would refuse a lock file that lacks other
  // platforms' optional binaries, which some registry mirrors do not carry.
  await run('npm', ['install', '--no-audit', '--no-fund']);
}

async function ensureBuilt() {
  const stamp = at('dist', '.build-stamp');
  const sources = Math.max(
    newest(at('src')),
    newest(at('drizzle')),
    mtime(at('package.json')),
    mtime(at('package-lock.json')),
    mtime(at('vite.config.ts')),
    mtime(at('scripts', 'build.mjs')),
  );
  if (existsSync(at('dist', 'server', 'main.js')) && mtime(stamp) >= sources) return;
  console.log('[autocoder] building…');
  const { build } = await import(pathToFileURL(at('scripts', 'build.mjs')).href);
  await build({ quiet: true });
}

try {
  await ensureInstalled();
  await ensureBuilt();
} catch (error) {
  console.error(`[autocoder] could not prepare the app: ${error.message}`);
  process.exit(1);
}
await import(pathToFileURL(at('dist', 'server', 'main.js')).href);
