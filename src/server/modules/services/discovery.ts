import { constants } from 'node:fs';
import { type FileHandle, open, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ServiceWarning } from '@/contracts/services.js';
import { isPassive, parseServiceFile, type ServiceConfig } from './front-matter.js';
import { isServiceId } from './service-id.js';

/** Where a workspace declares its services (seed 002). */
export const SERVICES_DIR = '.discobot/services';
/** Front matter sits at the top: this much of a file is read. A longer file has a script body. */
const MAX_READ_BYTES = 64 * 1024;
/** Service files read per workspace (in id order); more are ignored with a warning. */
export const MAX_SERVICE_FILES = 100;

/** A service file as discovery found it. */
export interface ServiceDefinition {
  /** The file name. */
  id: string;
  /** The file's absolute path (run as the command; never shown). */
  file: string;
  /** `.discobot/services/<id>`, the API's `path`. */
  relativePath: string;
  config: ServiceConfig;
  passive: boolean;
}

export interface Discovery {
  definitions: ServiceDefinition[];
  warnings: ServiceWarning[];
}

/**
 * The services directory of a workspace, or null when there is none. A `.discobot` or `services`
 * that is a symlink leading out of the workspace is not followed.
 */
async function servicesDirOf(workspaceDir: string): Promise<string | null> {
  const missing = (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  };
  // The checkout may go meanwhile (a run's worktree removed): it then has no services.
  const root = await realpath(workspaceDir).catch(missing);
  if (!root) return null;
  const dir = await realpath(path.join(root, SERVICES_DIR)).catch(missing);
  if (!dir?.startsWith(`${root}${path.sep}`)) return null;
  return dir;
}

/**
 * Reads one entry: a regular file (never a symlink: the server reads it, so a link could show
 * a server file's lines as a service's name) whose front matter declares a passive service, or
 * an executable file with a shebang. Anything else is a warning, not a service.
 */
async function readDefinition(
  dir: string,
  id: string,
): Promise<{ definition: ServiceDefinition | null; warnings: ServiceWarning[] }> {
  const file = path.join(dir, id);
  const relativePath = `${SERVICES_DIR}/${id}`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile()) return { definition: null, warnings: [] };
    const buffer = Buffer.alloc(Math.min(info.size, MAX_READ_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const parsed = parseServiceFile(buffer.subarray(0, bytesRead).toString('utf8'));
    const warnings = parsed.warnings.map((message) => ({ file: relativePath, message }));
    // Past what was read there is more: a script body.
    const passive = info.size <= MAX_READ_BYTES && isPassive(parsed);
    const executable = (info.mode & 0o111) !== 0 && parsed.shebang;
    if (!passive && !executable) {
      warnings.push({
        file: relativePath,
        message: parsed.shebang
          ? 'not executable: give it the run bit (chmod +x)'
          : 'not a service: a script needs a #! line and the run bit; a passive service needs front matter with http or https and nothing after it',
      });
      return { definition: null, warnings };
    }
    return { definition: { id, file, relativePath, config: parsed.config, passive }, warnings };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Gone meanwhile, a symlink (ELOOP), or unreadable: not a service.
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'EACCES' || code === 'EISDIR') {
      return { definition: null, warnings: [] };
    }
    throw error;
  } finally {
    await handle?.close();
  }
}

/** Every service of a workspace, sorted by id, with the warnings discovery met. */
export async function discoverServices(workspaceDir: string): Promise<Discovery> {
  const dir = await servicesDirOf(workspaceDir);
  if (!dir) return { definitions: [], warnings: [] };
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const ids = entries
    .filter((entry) => entry.isFile() && isServiceId(entry.name))
    .map((entry) => entry.name)
    .sort();
  const definitions: ServiceDefinition[] = [];
  const warnings: ServiceWarning[] = [];
  if (ids.length > MAX_SERVICE_FILES) {
    // A repository decides how many files it holds: the list, and the work per poll, stay bounded.
    warnings.push({
      file: SERVICES_DIR,
      message: `${ids.length - MAX_SERVICE_FILES} more service files were ignored (at most ${MAX_SERVICE_FILES} are read)`,
    });
    ids.length = MAX_SERVICE_FILES;
  }
  for (const id of ids) {
    const found = await readDefinition(dir, id);
    if (found.definition) definitions.push(found.definition);
    warnings.push(...found.warnings);
  }
  return { definitions, warnings };
}

/**
 * One service by id (an id already checked with `isServiceId`), or null. `anyCase` finds a
 * service whose name differs only in case, when exactly one does: a preview host name arrives
 * in lower case.
 */
export async function findService(
  workspaceDir: string,
  id: string,
  options: { anyCase?: boolean } = {},
): Promise<ServiceDefinition | null> {
  if (!isServiceId(id)) return null;
  const dir = await servicesDirOf(workspaceDir);
  if (!dir) return null;
  let name = id;
  const names = await readdir(dir).catch((): string[] => []);
  if (!names.includes(id)) {
    const matches = options.anyCase
      ? names.filter((candidate) => candidate.toLowerCase() === id.toLowerCase())
      : [];
    if (matches.length !== 1 || !matches[0]) return null;
    name = matches[0];
  }
  return (await readDefinition(dir, name)).definition;
}
