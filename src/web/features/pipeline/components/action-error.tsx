import { GitMerge, KeyRound } from 'lucide-react';
import { Link } from 'react-router';
import type { PipelineActionError } from '../hooks/use-pipeline';
import { isKeyProblem } from './error-notification';

/** Why an action on the run was refused: the server's message, and what to do about it. */
export function ActionError({ error }: { error: PipelineActionError }) {
  if (error.code === 'MERGE_CONFLICT') return <MergeConflict error={error} />;
  const keyProblem = error.code === 'INVALID_API_KEY' || isKeyProblem({ message: error.message });
  return (
    <div
      role="alert"
      className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900"
      data-testid="pipeline-action-error"
    >
      <p>{error.message}</p>
      {keyProblem && (
        <Link
          to="/settings"
          className="mt-1 inline-flex items-center gap-1.5 text-xs font-medium underline underline-offset-2"
          data-testid="action-error-settings-link"
        >
          <KeyRound aria-hidden="true" className="size-3.5" />
          Update key in Settings
        </Link>
      )}
    </div>
  );
}

/** A merge git could not make: the files, and that nothing was lost. */
function MergeConflict({ error }: { error: PipelineActionError }) {
  const approving = error.action === 'approve';
  return (
    <div
      role="alert"
      className="flex flex-col gap-1.5 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950"
      data-testid="merge-conflict"
      data-action={error.action}
    >
      <p className="flex items-center gap-1.5 font-medium">
        <GitMerge aria-hidden="true" className="size-4 shrink-0" />
        {approving
          ? 'Not merged: the branch conflicts with the default branch.'
          : 'Not reverted: the revert conflicts with later changes on the default branch.'}
      </p>
      {error.files.length > 0 && (
        <ul className="ml-5 list-disc font-mono text-xs break-all" data-testid="merge-conflict-files">
          {error.files.map((file) => (
            <li key={file}>{file}</li>
          ))}
        </ul>
      )}
      <p className="text-xs">
        {approving
          ? 'Nothing was changed: the task stays in Review with its branch and worktree. Request changes merges the default branch into the task’s branch and has the coder resolve these files; then approve again.'
          : 'Nothing was changed: the approval stands. Undo these files on the default branch by hand, or leave the task in Done.'}
      </p>
    </div>
  );
}
