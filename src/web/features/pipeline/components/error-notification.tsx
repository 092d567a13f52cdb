import { KeyRound, TriangleAlert, X } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'sonner';
import type { ErrorDetails, PipelineStatus } from '@/contracts/pipeline';
import { retryCostsAttempt } from '@/contracts/run-lifecycle';
import { cn } from '@/web/lib/cn';

interface ErrorNotificationProps {
  errorDetails: ErrorDetails | null;
  status: PipelineStatus | undefined;
}

/** Errors the person can fix with a different key: refused keys and missing permissions. */
export function isKeyProblem(details: Pick<ErrorDetails, 'statusCode' | 'message'>): boolean {
  return details.statusCode === 401 || details.statusCode === 403 || /api key/i.test(details.message);
}

const TYPE_TITLES: Record<ErrorDetails['type'], string> = {
  api_error: 'provider error',
  parse_error: 'an agent’s answer could not be used',
  timeout: 'no answer from the provider',
  unknown: 'unexpected error',
  answer_too_large: 'an agent’s answer was too large',
  interrupted: 'the server restarted during the run',
  run_timeout: 'the run took longer than its time limit',
  lock_conflict: 'another agent is writing a file this run changes',
  budget_exceeded: 'the next call could pass the task’s token budget',
  nested_repository: 'the check left a git repository in the worktree',
  agent_stuck: 'the agent’s tool calls went nowhere',
  engine_failed: 'the coding agent (Claude Code, Codex) ended with an error',
  setup_failed: 'the project’s setup command failed in the run’s worktree',
};

/** Errors this recent when they reach the page are news; older ones come from a replay. */
const NEWS_MS = 30_000;

/**
 * A paused (or failed) run's error as a banner, and a toast when it first happens. Retry and Cancel
 * are the pipeline's controls (one of each on screen); dismissing hides the banner.
 */
export function ErrorNotification({ errorDetails, status }: ErrorNotificationProps) {
  const [dismissed, setDismissed] = useState<number | null>(null);
  const shown = errorDetails && (status === 'paused' || status === 'failed') ? errorDetails : null;

  useEffect(() => {
    if (!shown || Date.now() - shown.timestamp > NEWS_MS) return;
    // The id makes a second render of the same error update the toast rather than stack another.
    toast.error(status === 'paused' ? 'Pipeline paused' : 'Pipeline failed', {
      id: `pipeline-error-${shown.timestamp}`,
      description: shown.message,
      duration: 10_000,
    });
  }, [shown, status]);

  if (!shown || dismissed === shown.timestamp) return null;
  const paused = status === 'paused';
  // A budget pause waits for a higher budget: its Retry spends none of the run's retries.
  const countsRetry = retryCostsAttempt(shown.type);
  const facts = [
    shown.failedAgent && `Agent: ${shown.failedAgent}`,
    shown.failedPhase && `Phase: ${shown.failedPhase}`,
    shown.statusCode && `HTTP ${shown.statusCode}`,
    countsRetry &&
      (status === 'paused' || shown.retryCount > 0) &&
      `Retry ${shown.retryCount}/${shown.maxRetries}`,
  ].filter(Boolean);

  return (
    <div
      role="alert"
      className={cn(
        'relative rounded-md border p-3 pr-10 text-sm',
        paused ? 'border-amber-300 bg-amber-50 text-amber-950' : 'border-red-200 bg-red-50 text-red-950',
      )}
      data-testid="error-notification"
      data-status={status}
    >
      <button
        type="button"
        onClick={() => setDismissed(shown.timestamp)}
        aria-label="Dismiss error"
        className="absolute top-2 right-2 rounded p-1 opacity-70 hover:bg-black/5 hover:opacity-100 focus-visible:outline-2 focus-visible:outline-sky-500"
        data-testid="btn-error-dismiss"
      >
        <X aria-hidden="true" className="size-4" />
      </button>
      <p className="flex items-center gap-2 font-semibold">
        <TriangleAlert aria-hidden="true" className="size-4 shrink-0" />
        {`Pipeline ${paused ? 'paused' : 'failed'}: ${TYPE_TITLES[shown.type]}`}
      </p>
      <p className="mt-1 break-words" data-testid="error-message">
        {shown.message}
      </p>
      <p className="mt-1 text-xs opacity-80" data-testid="error-facts">
        {facts.join(' · ')}
      </p>
      {isKeyProblem(shown) && (
        <Link
          to="/settings"
          className="mt-2 inline-flex items-center gap-1.5 text-xs font-medium underline underline-offset-2"
          data-testid="error-settings-link"
        >
          <KeyRound aria-hidden="true" className="size-3.5" />
          Update key in Settings
        </Link>
      )}
    </div>
  );
}
