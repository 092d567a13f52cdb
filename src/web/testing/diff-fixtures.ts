import type { DiffFile, RunDiff } from '@/contracts/diff';
import type { ReviewComment } from '@/contracts/review-comments';

/** A changed file shaped as `GET /api/pipeline/runs/:runId/diff` sends it. */
export function diffFile(overrides: Partial<DiffFile> & Pick<DiffFile, 'path'>): DiffFile {
  return {
    oldPath: null,
    status: 'modified',
    language: 'typescript',
    binary: false,
    additions: 0,
    deletions: 0,
    patch: '',
    truncated: false,
    findings: [],
    ...overrides,
  };
}

/** The patch git writes for `path` with the given hunk lines (each with its +, - or space). */
export function patchOf(path: string, hunk: string, lines: string[]): string {
  return [
    `diff --git a/${path} b/${path}`,
    'index 1111111..2222222 100644',
    `--- a/${path}`,
    `+++ b/${path}`,
    hunk,
    ...lines,
    '',
  ].join('\n');
}

export function runDiffOf(files: DiffFile[], overrides: Partial<RunDiff> = {}): RunDiff {
  return {
    runId: '00000000-0000-4000-8000-000000000001',
    baseCommit: 'b'.repeat(40),
    headCommit: 'c'.repeat(40),
    stats: {
      filesChanged: files.length,
      additions: files.reduce((sum, file) => sum + file.additions, 0),
      deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    },
    files,
    generalFindings: [],
    ...overrides,
  };
}

/** Comments answered at the boundary as the server keeps them: GET lists, POST adds (201), DELETE removes. */
export function commentsServer(runId: string) {
  const comments: ReviewComment[] = [];
  let next = 1;
  const base = `/api/pipeline/runs/${runId}/comments`;
  return {
    comments,
    routes: {
      [`GET ${base}`]: () => ({ comments }),
      [`POST ${base}`]: ({ body }: { body: unknown }) => {
        const input = body as Pick<ReviewComment, 'path' | 'line' | 'body'>;
        const comment: ReviewComment = {
          id: `comment-${next++}`,
          ...input,
          createdAt: new Date(2_000).toISOString(),
          addressedAt: null,
        };
        comments.push(comment);
        return new Response(JSON.stringify(comment), {
          status: 201,
          headers: { 'content-type': 'application/json' },
        });
      },
    },
    /** DELETE …/comments/:id answers for one id (the stub matches whole paths). */
    deleteRoute: (id: string) => ({
      [`DELETE ${base}/${id}`]: () => {
        comments.splice(
          comments.findIndex((comment) => comment.id === id),
          1,
        );
        return new Response(null, { status: 204 });
      },
    }),
  };
}
