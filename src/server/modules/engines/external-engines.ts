import type { CoderEngineId } from '@/contracts/projects.js';
import { AppError } from '@/server/lib/errors.js';
import type { CoderEngine } from '../agent-tools/coder-engine.js';
import { createClaudeCodeEngine } from './claude-code-engine.js';
import { createCodexEngine } from './codex-engine.js';
import {
  type EngineCatalog,
  EngineUnavailableError,
  type ExternalEngineId,
  isExternalEngine,
} from './engine-catalog.js';
import type { EngineSandbox } from './engine-process.js';
import { type EngineCredentials, engineTargetOf, providerMismatch } from './engine-target.js';

/** The person's coding agents as coder engines, for the pipeline. */
export interface ExternalEngines {
  readonly catalog: EngineCatalog;
  /**
   * Throws 400 ENGINE_UNAVAILABLE when a run with `engine` and `provider` could not start here:
   * the engine is not installed or cannot start, or does not speak the provider's API.
   */
  assertUsable(engine: CoderEngineId, provider: EngineCredentials['provider']): Promise<void>;
  /** The engine of one run (its credentials in memory only). */
  create(engine: ExternalEngineId, run: EngineCredentials): CoderEngine;
}

export function createExternalEngines(options: {
  catalog: EngineCatalog;
  sandbox: EngineSandbox;
  /** Where the simulator listens (read when a run starts). */
  simulatorUrl: () => string;
  guardedFetch?: typeof fetch;
}): ExternalEngines {
  const { catalog, sandbox } = options;
  return {
    catalog,
    async assertUsable(engine, provider) {
      if (!isExternalEngine(engine)) return;
      const reason = (await catalog.unavailable(engine)) ?? providerMismatch(engine, provider);
      if (reason) throw new AppError('ENGINE_UNAVAILABLE', reason);
    },
    create(engine, run) {
      const target = engineTargetOf(engine, run, {
        simulatorUrl: options.simulatorUrl(),
        guardedFetch: options.guardedFetch,
      });
      const binary = () => catalog.binary(engine);
      return engine === 'claude-code'
        ? createClaudeCodeEngine({ sandbox, binary, target })
        : createCodexEngine({ sandbox, binary, target });
    },
  };
}

export { EngineUnavailableError };
