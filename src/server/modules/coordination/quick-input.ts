import { stripControl } from '@/contracts/common.js';
import {
  BAD_BRANCH,
  type CheckStatusInput,
  COMMIT_ID,
  leavesRepository,
  MAX_BRANCH_CHARS,
  MAX_FILE_PATHS,
  MAX_LOCK_PATH_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_REPO_URL_CHARS,
  normalizeLockPath,
  POST_STATUSES,
  type PostStatusInput,
} from '@/contracts/coordination.js';

/**
 * checkStatusSchema's and postStatusSchema's answers for the bodies agents send, without zod: a
 * call's schema check cost more than the rest of its rules. Each field goes through the same
 * steps as the schema's (trim, the same patterns and limits, the same path normalization, the
 * same de-duplication), and unknown fields are left out as the schema strips them. Anything these
 * do not accept plainly is null: the caller asks the schema, whose answer (or 400) stands.
 * quick-input.test.ts holds them to the schemas.
 */
export function quickCheckStatusInput(body: unknown): CheckStatusInput | null {
  if (!isRecord(body)) return null;
  const common = commonOf(body);
  const filePaths = filePathsOf(body.file_paths);
  if (!common || !filePaths) return null;
  return { ...common, file_paths: filePaths };
}

export function quickPostStatusInput(body: unknown): PostStatusInput | null {
  if (!isRecord(body)) return null;
  const common = commonOf(body);
  const filePaths = filePathsOf(body.file_paths);
  if (!common || !filePaths || filePaths.length === 0) return null;
  const status = body.status;
  if (typeof status !== 'string' || !(POST_STATUSES as readonly string[]).includes(status)) return null;
  if (typeof body.message !== 'string') return null;
  const message = stripControl(body.message).trim();
  if (message.length < 1 || message.length > MAX_MESSAGE_CHARS) return null;
  const newRepoHead = commitOf(body.new_repo_head);
  if (newRepoHead === null || (status === 'OPEN' && newRepoHead === undefined)) return null;
  return {
    ...common,
    file_paths: filePaths,
    status: status as PostStatusInput['status'],
    message,
    ...(newRepoHead !== undefined ? { new_repo_head: newRepoHead } : {}),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function commonOf(body: Record<string, unknown>) {
  if (typeof body.repo_url !== 'string' || typeof body.branch !== 'string') return null;
  const repoUrl = body.repo_url.trim();
  if (repoUrl.length < 1 || repoUrl.length > MAX_REPO_URL_CHARS) return null;
  const branch = body.branch.trim();
  if (branch.length < 1 || branch.length > MAX_BRANCH_CHARS) return null;
  if (branch.startsWith('-') || BAD_BRANCH.test(branch)) return null;
  const agentHead = commitOf(body.agent_head);
  if (agentHead === null) return null;
  return { repo_url: repoUrl, branch, ...(agentHead !== undefined ? { agent_head: agentHead } : {}) };
}

/** undefined when absent, null when not a commit id. */
function commitOf(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return COMMIT_ID.test(trimmed) ? trimmed.toLowerCase() : null;
}

function filePathsOf(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > MAX_FILE_PATHS) return null;
  const paths = new Set<string>();
  for (const raw of value) {
    if (typeof raw !== 'string' || raw.length < 1 || raw.length > MAX_LOCK_PATH_CHARS) return null;
    const path = normalizeLockPath(raw);
    if (path === '' || leavesRepository(path)) return null;
    paths.add(path);
  }
  return [...paths];
}
