import { Bot, KeyRound, Settings } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import { type AgentType, PROVIDER_LABELS } from '@/contracts/pipeline';
import type { TaskStatus } from '@/contracts/tasks';
import { LoadingState } from '@/web/components/ui/spinner';
import { effectiveProvider, useRunSettings } from '@/web/lib/run-settings';
import { usePipelineStatus } from '../api/get-pipeline-status';
import { type PipelineActionError, usePipeline } from '../hooks/use-pipeline';
import { useSSE } from '../sse/use-sse';
import { useCheckRuns } from '../stores/pipeline-store';
import type { CheckRun, PipelineRunState } from '../stores/run-state';
import { AgentLog } from './agent-log';
import { CancelPipelineDialog } from './cancel-pipeline-dialog';
import { CheckLog } from './check-log';
import { ErrorNotification, isKeyProblem } from './error-notification';
import { FileChangeList } from './file-change-list';
import { PhaseStepper } from './phase-stepper';
import { PipelineControls } from './pipeline-controls';
import { RequestChangesDialog } from './request-changes-dialog';
import { RetryCountdown } from './retry-countdown';
import { ReviewFindings } from './review-findings';
import { RunMeta } from './run-meta';
import { SIMULATED_DESCRIPTION, SimulatedBadge } from './simulated-badge';
import { StreamStatus } from './stream-status';
import { SubtaskList } from './subtask-list';

interface PipelinePanelProps {
  taskId: string;
  taskStatus: TaskStatus;
}

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
export function PipelinePanel({ taskId, taskStatus }: PipelinePanelProps) {
  const pipeline = usePipeline(taskId);
  const status = usePipelineStatus(taskId);
  const sse = useSSE({ taskId });
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [requestingChanges, setRequestingChanges] = useState(false);
  const checks = useCheckRuns(taskId);
  const run = pipeline.pipelineRun;

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
          onCancel={() => setConfirmingCancel(true)}
          onApprove={() => void pipeline.approvePipeline()}
          onRequestChanges={() => setRequestingChanges(true)}
        />
      </header>

      {run?.simulated && (
        <p className="-mt-2 text-xs text-violet-700" data-testid="simulated-notice">
          {SIMULATED_DESCRIPTION}
        </p>
      )}
      {pipeline.actionError && <ActionError error={pipeline.actionError} />}

      <ErrorNotification
        errorDetails={run?.errorDetails ?? null}
        status={run?.status}
        retrying={pipeline.isRetrying}
        cancelling={pipeline.isCancelling}
        onRetry={() => void pipeline.retryPipeline()}
        onCancel={() => setConfirmingCancel(true)}
      />

      {run ? (
        <RunDetails run={run} taskStatus={taskStatus} logs={pipeline.agentLogs} checks={checks} />
      ) : status.isPending ? (
        <LoadingState className="p-2" label="Loading the pipeline…" />
      ) : (
        <NoRunYet />
      )}

      <CancelPipelineDialog
        open={confirmingCancel}
        onOpenChange={setConfirmingCancel}
        pending={pipeline.isCancelling}
        onConfirm={() => void pipeline.cancelPipeline().then(() => setConfirmingCancel(false))}
      />
      <RequestChangesDialog
        open={requestingChanges}
        onOpenChange={setRequestingChanges}
        pending={pipeline.isRequestingChanges}
        onSubmit={pipeline.requestChanges}
      />
    </section>
  );
}

function RunDetails({
  run,
  taskStatus,
  logs,
  checks,
}: {
  run: PipelineRunState;
  taskStatus: TaskStatus;
  logs: ReturnType<typeof usePipeline>['agentLogs'];
  checks: readonly CheckRun[];
}) {
  const working = run.status === 'running' ? (WORKING_AGENT[run.phase] ?? null) : null;
  const pastCoding = run.status === 'passed' || run.phase === 'reviewing' || run.phase === 'fixing';
  return (
    <>
      <div className="flex flex-col gap-3">
        <PhaseStepper run={run} taskStatus={taskStatus} />
        <RunMeta run={run} />
        {run.retryAt && run.status === 'running' && <RetryCountdown retryAt={run.retryAt} />}
      </div>
      <Part title={run.simulated ? 'Agent output (simulated)' : 'Agent output'}>
        <AgentLog logs={logs} activeAgent={working} />
      </Part>
      {checks.length > 0 && <CheckLog checks={checks} running={run.status === 'running'} />}
      {run.subtasks.length > 0 && (
        <Part title={`Subtasks (${run.subtasks.length})`}>
          <SubtaskList subtasks={run.subtasks} current={run.subtask} allDone={pastCoding} />
        </Part>
      )}
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

function ActionError({ error }: { error: PipelineActionError }) {
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
