import { Bot, Settings } from 'lucide-react';
import { lazy, type ReactNode, Suspense, useCallback, useState } from 'react';
import { Link } from 'react-router';
import { type AgentType, PROVIDER_LABELS } from '@/contracts/pipeline';
import type { TaskStatus } from '@/contracts/tasks';
import { LoadingState } from '@/web/components/ui/spinner';
import { effectiveProvider, useRunSettings } from '@/web/lib/run-settings';
import { usePipelineStatus } from '../api/get-pipeline-status';
import { openComments, useReviewComments } from '../api/get-review-comments';
import { usePipeline } from '../hooks/use-pipeline';
import { useSSE } from '../sse/use-sse';
import { useCheckRuns, useSetupRuns } from '../stores/pipeline-store';
import type { AgentLogsState, CheckRun, PipelineRunState, SetupRun } from '../stores/run-state';
import { shortSha } from '../utils/run-labels';
import { ActionError } from './action-error';
import { AgentLog } from './agent-log';
import { type CheckFocus, CheckLog } from './check-log';
import { ErrorNotification } from './error-notification';
import { FileChangeList } from './file-change-list';
import { LockWaitNotice } from './lock-wait-notice';
import { PhaseStepper } from './phase-stepper';
import { PipelineActionDialogs, type PipelineDialog } from './pipeline-action-dialogs';
import { PipelineControls } from './pipeline-controls';
import { RetryCountdown } from './retry-countdown';
import { ReviewFindings } from './review-findings';
import { RunMeta } from './run-meta';
import { SetupLog } from './setup-log';
import { SIMULATED_DESCRIPTION, SimulatedBadge } from './simulated-badge';
import { StreamStatus } from './stream-status';
import { SubtaskList } from './subtask-list';
import { TaskSpend, taskSpendOf } from './task-spend';

interface PipelinePanelProps {
  taskId: string;
  taskStatus: TaskStatus;
  /** The project's default branch, where an approval merges the run's branch (named in the confirmation). */
  targetBranch?: string | null;
  /** The project's token budget per task (`taskTokenBudget`); null or left out: none. */
  tokenBudget?: number | null;
}

/** The diff viewer and its highlighter load when a finished run is first opened, not with the board. */
const ReviewPanel = lazy(() =>
  import('./review/review-panel').then((module) => ({ default: module.ReviewPanel })),
);

const WORKING_AGENT: Record<string, AgentType> = {
  planning: 'planner',
  coding: 'coder',
  fixing: 'coder',
  reviewing: 'reviewer',
};

function Part({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section className="flex flex-col gap-2" data-testid={testId}>
      <h4 className="text-xs font-medium text-zinc-500">{title}</h4>
      {children}
    </section>
  );
}

/** The task drawer's Pipeline section: actions, errors, phases, live agent output and results. */
export function PipelinePanel({
  taskId,
  taskStatus,
  tokenBudget = null,
  targetBranch = null,
}: PipelinePanelProps) {
  const pipeline = usePipeline(taskId);
  const status = usePipelineStatus(taskId);
  const sse = useSSE({ taskId });
  const [dialog, setDialog] = useState<PipelineDialog>(null);
  const checks = useCheckRuns(taskId);
  const setups = useSetupRuns(taskId);
  const run = pipeline.pipelineRun;
  const inReview = run?.status === 'passed' && taskStatus === 'review';
  const comments = useReviewComments(run?.runId ?? '', inReview);

  return (
    <section
      aria-labelledby="pipeline-heading"
      className="flex flex-col gap-4 rounded-lg border border-zinc-200 bg-white p-3 sm:p-4"
      data-testid="pipeline-panel"
    >
      <header className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <h3 id="pipeline-heading" className="flex items-center gap-1.5 text-sm font-semibold text-zinc-900">
            <Bot aria-hidden="true" className="size-4 text-zinc-500" />
            Pipeline
          </h3>
          {run?.simulated && <SimulatedBadge />}
          <StreamStatus sse={sse} />
        </div>
        <PipelineControls
          run={run}
          taskStatus={taskStatus}
          pending={pipeline}
          onStart={() => void pipeline.startPipeline()}
          onRetry={() => void pipeline.retryPipeline()}
          onCancel={() => setDialog('cancel')}
          onApprove={() => setDialog('approve')}
          onRequestChanges={() => setDialog('request-changes')}
          onRevert={() => setDialog('revert')}
        />
      </header>

      {run?.simulated && (
        <p className="-mt-2 text-xs text-violet-700" data-testid="simulated-notice">
          {SIMULATED_DESCRIPTION}
        </p>
      )}
      {pipeline.actionError && <ActionError error={pipeline.actionError} />}

      {/* Its Retry and Cancel are the controls' above: one of each on screen. */}
      <ErrorNotification errorDetails={run?.errorDetails ?? null} status={run?.status} />

      {run ? (
        <RunDetails
          run={run}
          taskStatus={taskStatus}
          logs={pipeline.agentLogs}
          checks={checks}
          setups={setups}
          tokenBudget={tokenBudget}
        />
      ) : status.isPending ? (
        <LoadingState className="p-2" label="Loading the pipeline…" />
      ) : (
        <NoRunYet />
      )}

      <PipelineActionDialogs
        open={dialog}
        onClose={() => setDialog(null)}
        pipeline={pipeline}
        target={targetBranch}
        openComments={inReview ? openComments(comments.data).length : 0}
      />
    </section>
  );
}

function RunDetails({
  run,
  taskStatus,
  logs,
  checks,
  setups,
  tokenBudget,
}: {
  run: PipelineRunState;
  taskStatus: TaskStatus;
  logs: ReturnType<typeof usePipeline>['agentLogs'];
  checks: readonly CheckRun[];
  setups: readonly SetupRun[];
  tokenBudget: number | null;
}) {
  const spend = taskSpendOf(run);
  const [checkFocus, setCheckFocus] = useState<CheckFocus | null>(null);
  const showCheck = useCallback(
    (index: number) => setCheckFocus((current) => ({ index, nonce: (current?.nonce ?? 0) + 1 })),
    [],
  );
  const working = run.status === 'running' ? (WORKING_AGENT[run.phase] ?? null) : null;
  const pastCoding = run.status === 'passed' || run.phase === 'reviewing' || run.phase === 'fixing';
  const review = reviewable(run);
  return (
    <>
      <div className="flex flex-col gap-3">
        <PhaseStepper run={run} taskStatus={taskStatus} setups={setups} checks={checks} />
        {run.status === 'running' && run.lockWait && <LockWaitNotice wait={run.lockWait} />}
        {run.revertCommit && run.status === 'passed' && (
          <p className="text-xs text-zinc-600" data-testid="pipeline-reverted">
            Approval reverted by{' '}
            <code className="font-mono text-[11px] text-zinc-800" title={run.revertCommit}>
              {shortSha(run.revertCommit)}
            </code>{' '}
            on the default branch.
          </p>
        )}
        <RunMeta run={run} toolCalls={toolCallsOf(logs)} />
        {(tokenBudget !== null || spend.tokens > run.usage.inputTokens + run.usage.outputTokens) && (
          <TaskSpend {...spend} budgetTokens={tokenBudget} />
        )}
        {run.retryAt && run.status === 'running' && <RetryCountdown retryAt={run.retryAt} />}
      </div>
      {/* A finished run is read first for what it changed, then for how it got there. */}
      {review && (
        <Part title="Review" testId="pipeline-review">
          <Suspense fallback={<LoadingState className="p-4" label="Loading the diff…" />}>
            <ReviewPanel
              run={run}
              taskStatus={taskStatus}
              checks={checks}
              fallback={<RunProducts run={run} />}
            />
          </Suspense>
        </Part>
      )}
      {/* The worktree's setup comes before the agents' first step in it. */}
      {setups.length > 0 && <SetupLog setups={setups} running={run.status === 'running'} />}
      <Part title={run.simulated ? 'Agent output (simulated)' : 'Agent output'}>
        <AgentLog logs={logs} activeAgent={working} onShowCheck={showCheck} />
      </Part>
      {checks.length > 0 && (
        <CheckLog checks={checks} running={run.status === 'running'} focus={checkFocus} />
      )}
      {run.subtasks.length > 0 && (
        <Part title={`Subtasks (${run.subtasks.length})`}>
          <SubtaskList subtasks={run.subtasks} current={run.subtask} allDone={pastCoding} />
        </Part>
      )}
      {!review && <RunProducts run={run} />}
    </>
  );
}

/** The tool calls the run's agents have made (the tool loop): counted as their lines come. */
function toolCallsOf(logs: AgentLogsState | null): number {
  if (!logs) return 0;
  let count = 0;
  for (const entries of [logs.planner, logs.coder, logs.reviewer])
    for (const entry of entries) if (entry.kind === 'tool') count++;
  return count;
}

/** A finished run whose branch was made: its diff can be read from git. */
const reviewable = (run: PipelineRunState) =>
  (run.status === 'passed' || run.status === 'failed' || run.status === 'cancelled') &&
  run.branch !== null &&
  run.baseCommit !== null;

/** The findings and files as the run recorded them, while it works or when its branch is gone. */
function RunProducts({ run }: { run: PipelineRunState }) {
  return (
    <>
      {run.reviewFindings && (
        <Part title="Review">
          <ReviewFindings review={run.reviewFindings} />
        </Part>
      )}
      {run.fileChanges.length > 0 && (
        <Part title={`Files changed (${run.fileChanges.length})`}>
          <FileChangeList files={run.fileChanges} />
        </Part>
      )}
    </>
  );
}

function NoRunYet() {
  const settings = useRunSettings();
  const provider = effectiveProvider(settings);
  return (
    <p className="text-sm text-zinc-600" data-testid="pipeline-intro">
      Agents plan this task, code it on a branch of its own and review the result; you approve the merge. Runs
      with <span className="font-medium text-zinc-800">{PROVIDER_LABELS[provider]}</span>
      {' · '}
      <Link
        to="/settings"
        className="inline-flex items-center gap-1 text-sky-700 underline-offset-2 hover:underline"
      >
        <Settings aria-hidden="true" className="size-3.5" />
        Change in Settings
      </Link>
    </p>
  );
}
