import { Coins, GitBranch, GitCommitHorizontal, Hash, Wrench } from 'lucide-react';
import type { ReactNode } from 'react';
import { PROVIDER_LABELS } from '@/contracts/pipeline';
import type { PipelineRunState } from '../stores/run-state';
import { formatCost, formatCount, shortSha } from '../utils/run-labels';
import { cachedLabel } from '../utils/usage-labels';

function Fact({
  icon,
  label,
  children,
  testId,
}: {
  icon: ReactNode;
  label: string;
  children: ReactNode;
  testId: string;
}) {
  return (
    <div className="flex min-w-0 items-center gap-1.5" data-testid={testId}>
      {icon}
      <dt className="sr-only">{label}</dt>
      <dd className="min-w-0 truncate">{children}</dd>
    </div>
  );
}

const iconClass = 'size-3.5 shrink-0 text-zinc-400';

/**
 * Tokens (with the share read from the provider's prompt cache), estimated cost, the agents' tool
 * calls, provider, branch and head commit of a run.
 */
export function RunMeta({ run, toolCalls = 0 }: { run: PipelineRunState; toolCalls?: number }) {
  const { inputTokens, outputTokens, costUsd } = run.usage;
  const cached = cachedLabel(run.usage);
  return (
    <dl
      className="flex flex-wrap items-center gap-x-4 gap-y-1.5 text-xs text-zinc-600"
      data-testid="run-meta"
    >
      <Fact icon={<Hash aria-hidden="true" className={iconClass} />} label="Tokens" testId="run-tokens">
        <span className="tabular-nums">{formatCount(inputTokens)}</span> in
        {cached && (
          <span className="text-zinc-400 tabular-nums" data-testid="run-cached-tokens">
            {' '}
            {cached}
          </span>
        )}{' '}
        · <span className="tabular-nums">{formatCount(outputTokens)}</span> out
      </Fact>
      {toolCalls > 0 && (
        <Fact
          icon={<Wrench aria-hidden="true" className={iconClass} />}
          label="Tool calls"
          testId="run-tool-calls"
        >
          <span className="tabular-nums">{formatCount(toolCalls)}</span> tool call{toolCalls === 1 ? '' : 's'}
        </Fact>
      )}
      <Fact
        icon={<Coins aria-hidden="true" className={iconClass} />}
        label="Estimated cost"
        testId="run-cost"
      >
        <span className="tabular-nums">{formatCost(run.simulated ? 0 : costUsd)}</span>
        <span className="text-zinc-400"> {run.simulated ? '(simulated, free)' : 'est.'}</span>
      </Fact>
      {run.provider && !run.simulated && (
        <Fact icon={null} label="Provider" testId="run-provider">
          <span className="text-zinc-500">{PROVIDER_LABELS[run.provider]}</span>
        </Fact>
      )}
      {run.branch && (
        <Fact
          icon={<GitBranch aria-hidden="true" className={iconClass} />}
          label="Branch"
          testId="run-branch"
        >
          <code className="font-mono text-[11px] text-zinc-700">{run.branch}</code>
        </Fact>
      )}
      {run.headCommit && (
        <Fact
          icon={<GitCommitHorizontal aria-hidden="true" className={iconClass} />}
          label="Head commit"
          testId="run-head-commit"
        >
          <code className="font-mono text-[11px] text-zinc-700" title={run.headCommit}>
            {shortSha(run.headCommit)}
          </code>
        </Fact>
      )}
    </dl>
  );
}
