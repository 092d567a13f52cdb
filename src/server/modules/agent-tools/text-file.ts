import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ToolProblem } from './tool-types.js';

/** Reading and replacing files the way the tools need: bounded, no link followed, atomic. */

export interface FileContent {
  data: Buffer;
  info: Stats;
}

/**
 * Reads a regular file whole. O_NOFOLLOW refuses a link swapped in since the path was checked;
 * O_NONBLOCK keeps a FIFO swapped in from hanging the open.
 */
export async function readRegularFile(abs: string, rel: string, maxBytes: number): Promise<FileContent> {
  const handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolProblem(`${rel} is not a regular file`);
    if (info.size > maxBytes) {
      throw new ToolProblem(
        `${rel} is ${formatBytes(info.size)}, over the ${formatBytes(maxBytes)} the tools handle; ` +
          'search it instead, or leave it to the check',
      );
    }
    const data = Buffer.allocUnsafe(info.size);
    let filled = 0;
    while (filled < info.size) {
      const { bytesRead } = await handle.read(data, filled, info.size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { data: filled === info.size ? data : data.subarray(0, filled), info };
  } finally {
    await handle.close();
  }
}

/** Git's test: a NUL byte in the first 8,000 bytes makes a file binary. */
export function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

export function refuseBinary(data: Buffer, rel: string): void {
  if (isBinary(data)) {
    throw new ToolProblem(
      `${rel} is a binary file (${formatBytes(data.length)}); the tools read and edit text only`,
    );
  }
}

/**
 * Replaces `abs` with `data` by a temp file renamed over it in the same directory, so a reader
 * never sees half a file and a hard link at the target is replaced, not written through. `mode`
 * is the old file's (kept); a new file gets the umask's default.
 */
export async function writeAtomically(dir: string, abs: string, data: Buffer | string, mode?: number) {
  const temp = path.join(
    dir,
    `.${path.basename(abs).slice(0, 40)}.autocoder-${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temp, 'wx', 0o666);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await chmod(temp, mode & 0o7777);
    await rename(temp, abs);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Lines of a text, as a model counts them: a final newline does not start another line. */
export function countLines(data: Buffer | string): number {
  if (data.length === 0) return 0;
  let count = 0;
  const text = typeof data === 'string' ? Buffer.from(data) : data;
  let at = text.indexOf(10);
  while (at >= 0) {
    count++;
    at = text.indexOf(10, at + 1);
  }
  return text[text.length - 1] === 10 ? count : count + 1;
}

/** Identifies a version of a file: a write by anyone else changes it. */
export function stampOf(info: Stats): string {
  return `${info.ino}:${info.size}:${info.mtimeMs}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
