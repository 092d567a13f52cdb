import type { TreeEntry } from '@/contracts/projects.js';
import { gitText } from '@/server/lib/git.js';
import { assertRevision } from './refs.js';

/**
 * Every file of `commit`'s whole tree with its size in bytes, in git's order. Symlinks count
 * as files (their size is the target's length); directories and submodules do not.
 */
export async function treeFiles(dir: string, commit: string): Promise<TreeEntry[]> {
  assertRevision(commit, 'commit');
  const out = await gitText(['ls-tree', '-r', '-l', '-z', '--full-tree', commit], { cwd: dir });
  return out
    .split('\0')
    .filter(Boolean)
    .flatMap((record) => {
      // "<mode> <type> <object> <size>\t<path>"; with -z the path is verbatim, tabs and newlines included.
      const tab = record.indexOf('\t');
      const [, type, , size] = record.slice(0, tab).split(/\s+/);
      if (type !== 'blob') return [];
      return [{ path: record.slice(tab + 1), size: Number(size) || 0 }];
    });
}
