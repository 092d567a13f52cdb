import { Keyboard } from 'lucide-react';
import { type ReactNode, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { DiffFile, RunDiff } from '@/contracts/diff';
import type { ReviewComment } from '@/contracts/review-comments';
import type { Task } from '@/contracts/tasks';
import { useAddReviewComment } from '../../api/add-review-comment';
import { useDeleteReviewComment } from '../../api/delete-review-comment';
import { useReviewComments } from '../../api/get-review-comments';
import { useReviewKeys } from '../../hooks/use-review-keys';
import { useViewedMarks } from '../../hooks/use-viewed-marks';
import type { PipelineRunState } from '../../stores/run-state';
import { buildDiffTree, treeOrder } from '../../utils/diff-tree';
import { bySeverity } from '../../utils/pin-notes';
import { viewedStorageKey } from '../../utils/viewed-marks';
import type { DiffMode } from '../review/file-diff';
import type { CommentActions } from '../review/line-notes';
import { FindingNote } from '../review/line-notes';
import { ModeToggle } from '../review/mode-toggle';
import { ReviewSummary } from '../review/review-summary';
import { NearWatcherProvider } from './lazy-block';
import { ReviewFile } from './review-file';
import { ReviewFileTree } from './review-file-tree';
import { notesOf, ReviewNotesList } from './review-notes-list';
import { useGrammarWarmup } from './use-grammar-warmup';

/** A file without comments: one array, so that the file's props stay the same between renders. */
const NO_COMMENTS: ReviewComment[] = [];
const NO_FILES: DiffFile[] = [];

/**
 * Past this many changed lines a diff is large: its files come after the tree (which paints
 * first), and their lines render as they near the visible part of the page (LazyBlock).
 */
export const LARGE_DIFF_LINES = 3000;

/**
 * The run's diff on the review page: the file tree with "viewed" marks and the list of findings
 * and comments beside every changed file stacked at full width; j/k, n/p and v move through them.
 */
export function DiffReview({
  run,
  task,
  userId,
  diff,
  commentable,
  checks,
}: {
  run: PipelineRunState;
  task: Task;
  userId: string | null;
  diff: RunDiff;
  commentable: boolean;
  checks: ReactNode;
}) {
  const comments = useReviewComments(run.runId);
  const addComment = useAddReviewComment(run.runId);
  const deleteComment = useDeleteReviewComment(run.runId);
  const [mode, setMode] = useState<DiffMode>('unified');
  const files = useMemo(() => treeOrder(buildDiffTree(diff.files)), [diff.files]);
  const large = useMemo(
    () => files.reduce((lines, file) => lines + file.additions + file.deletions, 0) > LARGE_DIFF_LINES,
    [files],
  );
  // A large diff's files render in the background after the first paint (the tree, the summary).
  const listed = useDeferredValue(files, large ? NO_FILES : files);
  useGrammarWarmup(files, large);
  const storageKey = userId ? viewedStorageKey(userId, task.id) : null;
  const { viewed, setViewed } = useViewedMarks(storageKey, files);
  const [collapsedOverride, setCollapsedOverride] = useState<Record<string, boolean>>({});
  const [currentPath, setCurrentPath] = useState<string | null>(null);
  const [noteIndex, setNoteIndex] = useState<number | null>(null);
  const [focus, setFocus] = useState<{ path: string; line: number; seq: number } | null>(null);
  const fileRefs = useRef(new Map<string, HTMLElement>());
  const notes = useMemo(() => notesOf(files, comments.data ?? []), [files, comments.data]);
  const current = files.find((file) => file.path === currentPath) ?? null;

  const isCollapsed = (file: DiffFile) => collapsedOverride[file.path] ?? viewed.has(file.path);

  const markViewed = useCallback(
    (file: DiffFile, on: boolean) => {
      setViewed(file, on);
      // The file folds away when marked and opens again when unmarked.
      setCollapsedOverride((state) => {
        const { [file.path]: _, ...rest } = state;
        return rest;
      });
    },
    [setViewed],
  );

  const goToFile = useCallback((path: string) => {
    setCurrentPath(path);
    fileRefs.current.get(path)?.scrollIntoView?.({ block: 'start' });
  }, []);

  const goToNote = useCallback(
    (index: number) => {
      const note = notes[index];
      if (!note) return;
      setNoteIndex(index);
      setCurrentPath(note.path);
      setCollapsedOverride((state) => ({ ...state, [note.path]: false }));
      setFocus((previous) => ({ path: note.path, line: note.line, seq: (previous?.seq ?? 0) + 1 }));
    },
    [notes],
  );

  // Once the file is open, the note's line (or the file's own notes) comes into view.
  useEffect(() => {
    if (!focus) return;
    const section = fileRefs.current.get(focus.path);
    const target =
      section?.querySelector(`tr[data-anchor="${focus.line}"]`) ??
      section?.querySelector('[data-testid="file-notes"]') ??
      section;
    target?.scrollIntoView?.({ block: 'center' });
  }, [focus]);

  const step = (by: number) => {
    if (files.length === 0) return;
    const at = current ? files.indexOf(current) : -1;
    const next = at < 0 ? (by > 0 ? 0 : files.length - 1) : Math.min(files.length - 1, Math.max(0, at + by));
    goToFile(files[next]!.path);
  };
  const stepNote = (by: number) => {
    if (notes.length === 0) return;
    const next =
      noteIndex === null
        ? by > 0
          ? 0
          : notes.length - 1
        : Math.min(notes.length - 1, Math.max(0, noteIndex + by));
    goToNote(next);
  };

  useReviewKeys({
    nextFile: () => step(1),
    previousFile: () => step(-1),
    nextNote: () => stepNote(1),
    previousNote: () => stepNote(-1),
    toggleViewed: () => {
      const file = current ?? files[0];
      if (!file) return;
      if (!current) setCurrentPath(file.path);
      markViewed(file, !viewed.has(file.path));
    },
  });

  // Per file, the same object while nothing in it changes: a file's props change only when it does.
  const addCommentAsync = addComment.mutateAsync;
  const deleteCommentNow = deleteComment.mutate;
  const deletingId = deleteComment.isPending ? (deleteComment.variables ?? null) : null;
  const actionsByPath = useMemo(() => {
    const map = new Map<string, CommentActions>();
    if (!commentable) return map;
    for (const file of files)
      map.set(file.path, {
        onAdd: async (line, body) => {
          try {
            await addCommentAsync({ path: file.path, line, body });
            return true;
          } catch {
            // The mutation's toast says why; the box stays open with the text.
            return false;
          }
        },
        onDelete: (commentId) => deleteCommentNow(commentId),
        deletingId,
      });
    return map;
  }, [commentable, files, addCommentAsync, deleteCommentNow, deletingId]);

  const selectFile = useCallback(
    (path: string) => {
      setCollapsedOverride((state) => ({ ...state, [path]: false }));
      goToFile(path);
    },
    [goToFile],
  );

  const setCollapsed = useCallback(
    (path: string, collapsed: boolean) => setCollapsedOverride((state) => ({ ...state, [path]: collapsed })),
    [],
  );

  const byPath = useMemo(() => {
    const map = new Map<string, ReviewComment[]>();
    for (const comment of comments.data ?? [])
      map.set(comment.path, [...(map.get(comment.path) ?? []), comment]);
    return map;
  }, [comments.data]);

  return (
    <div className="flex flex-col gap-3 lg:flex-row lg:items-start">
      <aside className="flex shrink-0 flex-col gap-3 rounded-md border border-zinc-200 bg-white p-2 lg:sticky lg:top-0 lg:max-h-[calc(100dvh-4rem)] lg:w-80 lg:overflow-y-auto">
        <ReviewFileTree
          files={files}
          viewed={viewed}
          currentPath={currentPath}
          onSelect={selectFile}
          onViewed={markViewed}
        />
        <ReviewNotesList
          notes={notes}
          currentKey={noteIndex === null ? null : (notes[noteIndex]?.key ?? null)}
          onPick={goToNote}
        />
        <p className="flex items-start gap-1.5 px-1 text-[11px] text-zinc-500" data-testid="review-keys-hint">
          <Keyboard aria-hidden="true" className="mt-px size-3.5 shrink-0" />
          <span>
            <kbd>j</kbd>/<kbd>k</kbd> next/previous file · <kbd>n</kbd>/<kbd>p</kbd> next/previous finding or
            comment · <kbd>v</kbd> viewed
          </span>
        </p>
      </aside>
      <div className="flex min-w-0 flex-1 flex-col gap-3">
        <ReviewSummary run={run} stats={diff.stats} />
        {checks}
        {diff.generalFindings.length > 0 && (
          <section
            className="flex flex-col gap-1.5"
            data-testid="general-findings"
            aria-label="General findings"
          >
            {[...diff.generalFindings].sort(bySeverity).map((finding, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: findings have no id; their order is stable.
              <FindingNote key={index} finding={finding} where={finding.file ?? 'the change as a whole'} />
            ))}
          </section>
        )}
        <div className="flex flex-wrap items-center justify-between gap-2">
          <p className="text-xs text-zinc-600" data-testid="review-comment-hint">
            {commentable
              ? 'Click a line number to comment on it: open comments go to the coder when you request changes.'
              : 'Comments can be added while the task is in Review.'}
          </p>
          <ModeToggle mode={mode} onChange={setMode} testIdPrefix="review-mode" />
        </div>
        {files.length === 0 ? (
          <p className="text-sm text-zinc-500" data-testid="review-no-changes">
            The branch changes no file.
          </p>
        ) : (
          <LazyFiles large={large}>
            {listed.map((file) => (
              <div
                key={file.path}
                ref={(element) => {
                  if (element) fileRefs.current.set(file.path, element);
                  else fileRefs.current.delete(file.path);
                }}
                className="scroll-mt-2"
              >
                <ReviewFile
                  file={file}
                  runId={run.runId}
                  headCommit={diff.headCommit}
                  mode={mode}
                  comments={byPath.get(file.path) ?? NO_COMMENTS}
                  actions={actionsByPath.get(file.path) ?? null}
                  viewed={viewed.has(file.path)}
                  onViewed={markViewed}
                  collapsed={isCollapsed(file)}
                  onCollapsed={setCollapsed}
                  current={file.path === currentPath}
                  focusLine={focus?.path === file.path ? focus.line : null}
                />
              </div>
            ))}
          </LazyFiles>
        )}
      </div>
    </div>
  );
}

/** A large diff's files, whose lines render as they near the visible part of the page. */
function LazyFiles({ large, children }: { large: boolean; children: ReactNode }) {
  return large ? <NearWatcherProvider>{children}</NearWatcherProvider> : children;
}
