import { TriangleAlert } from 'lucide-react';
import { CODER_ENGINES, type CoderEngineId } from '@/contracts/projects';
import { engineInfo, engineOptionSuffix, engineProblem, useEngines } from '@/web/lib/engines';
import { effectiveProvider, useRunSettings } from '@/web/lib/run-settings';

/**
 * The coder engines as the options of a select: each with its label, and one this server cannot
 * run disabled and marked "(not installed)". While the server's answer is not known, all are offered.
 */
export function EngineOptions({ label }: { label: (engine: CoderEngineId) => string }) {
  const { data } = useEngines();
  return (
    <>
      {CODER_ENGINES.map((id) => {
        const info = engineInfo(data?.engines, id);
        return (
          <option key={id} value={id} disabled={info ? !info.available : false}>
            {`${label(id)}${engineOptionSuffix(info)}`}
          </option>
        );
      })}
    </>
  );
}

/**
 * A short note under an engine select when a run with the engine would be refused: the server
 * cannot run it (its reason and install hint), or this browser's provider does not fit it.
 * Everything in it is the server's text or ours, drawn as text.
 */
export function EngineNote({ engine }: { engine: CoderEngineId | null | undefined }) {
  const { data } = useEngines();
  const provider = effectiveProvider(useRunSettings());
  const problem = engine ? engineProblem(engine, engineInfo(data?.engines, engine), provider) : null;
  return (
    <div aria-live="polite">
      {problem && (
        <p
          className="mt-1.5 flex items-start gap-1.5 rounded-md bg-amber-50 px-2.5 py-1.5 text-xs text-amber-900 ring-1 ring-amber-200 ring-inset"
          data-testid="engine-note"
          data-problem={problem.kind}
        >
          <TriangleAlert aria-hidden="true" className="mt-px size-3.5 shrink-0 text-amber-600" />
          <span className="min-w-0 break-words">
            {problem.text}
            {problem.install && (
              <>
                {' '}
                To install it: <code className="font-mono break-all">{problem.install}</code>
              </>
            )}
          </span>
        </p>
      )}
    </div>
  );
}
