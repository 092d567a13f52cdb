import { type FormEvent, useMemo, useState } from 'react';
import {
  CHECK_COMMAND_MAX_LENGTH,
  CHECK_TIMEOUT_SECONDS,
  CODER_ENGINE_LABELS,
  CODER_ENGINES,
  type CoderEngineId,
  MAX_TOOL_CALLS,
  type Project,
  SETUP_TIMEOUT_SECONDS,
  TASK_TOKEN_BUDGET,
  updateProjectSchema,
} from '@/contracts/projects';
import { EngineNote, EngineOptions } from '@/web/components/engine-choice';
import { Button } from '@/web/components/ui/button';
import { Dialog, DialogContent, DialogFooter, DialogTitle } from '@/web/components/ui/dialog';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { Select } from '@/web/components/ui/select';
import { Textarea } from '@/web/components/ui/textarea';
import { isApiError } from '@/web/lib/api-client';
import { useUpdateProject } from '../api/update-project';
import { SetupHelp } from './setup-help';

interface ProjectSettingsDialogProps {
  project: Project;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/**
 * A project's name, the setup of its worktrees (command, timeout, what AutoCoder proposes, the
 * dependency cache), its repository's own check (command and timeout), its token budget per task,
 * how its coder works (engine, tool calls per step) and its sandboxes' network.
 */
export function ProjectSettingsDialog({ project, open, onOpenChange }: ProjectSettingsDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent aria-describedby={undefined}>
        <DialogTitle>Project settings</DialogTitle>
        <ProjectSettingsForm project={project} onDone={() => onOpenChange(false)} />
      </DialogContent>
    </Dialog>
  );
}

/**
 * The form's fields as the project has them. The form starts from this and is compared with it, so
 * a field the server leaves out (an older server) reads as its default on both sides, never as a change.
 */
function fieldsOf(project: Project) {
  return {
    name: project.name,
    checkCommand: project.checkCommand ?? '',
    timeout: String(project.checkTimeoutSeconds),
    setupCommand: project.setupCommand ?? '',
    setupTimeout: String(project.setupTimeoutSeconds ?? SETUP_TIMEOUT_SECONDS.default),
    budget:
      project.taskTokenBudget === null || project.taskTokenBudget === undefined
        ? ''
        : String(project.taskTokenBudget),
    // null: the server's own allow-list; a list (one host a line; empty: no network at all).
    ownHosts: project.sandboxAllowedHosts !== null && project.sandboxAllowedHosts !== undefined,
    hosts: (project.sandboxAllowedHosts ?? []).join('\n'),
    coderEngine: (CODER_ENGINES as readonly string[]).includes(project.coderEngine)
      ? project.coderEngine
      : CODER_ENGINES[0],
    maxToolCalls: String(project.maxToolCalls ?? MAX_TOOL_CALLS.default),
  };
}

/** The contract's own word on a tool-call limit (its bounds and messages); undefined when it is valid. */
function maxToolCallsError(value: string): string | undefined {
  if (value.trim() === '') return `Enter a whole number from ${MAX_TOOL_CALLS.min} to ${MAX_TOOL_CALLS.max}`;
  const parsed = updateProjectSchema.safeParse({ maxToolCalls: Number(value) });
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

function ProjectSettingsForm({ project, onDone }: { project: Project; onDone: () => void }) {
  const saved = useMemo(() => fieldsOf(project), [project]);
  const [name, setName] = useState(saved.name);
  const [checkCommand, setCheckCommand] = useState(saved.checkCommand);
  const [timeout, setTimeoutSeconds] = useState(saved.timeout);
  const [setupCommand, setSetupCommand] = useState(saved.setupCommand);
  const [setupTimeout, setSetupTimeout] = useState(saved.setupTimeout);
  const [budget, setBudget] = useState(saved.budget);
  const [budgetNotANumber, setBudgetNotANumber] = useState(false);
  const [ownHosts, setOwnHosts] = useState(saved.ownHosts);
  const [hosts, setHosts] = useState(saved.hosts);
  const [coderEngine, setCoderEngine] = useState<CoderEngineId>(saved.coderEngine);
  const [maxToolCalls, setMaxToolCalls] = useState(saved.maxToolCalls);
  const [toolCallsInvalid, setToolCallsInvalid] = useState<string | undefined>(undefined);
  const current = {
    name,
    checkCommand,
    timeout,
    setupCommand,
    setupTimeout,
    budget,
    ownHosts,
    hosts,
    coderEngine,
    maxToolCalls,
  };
  const dirty = (Object.keys(saved) as (keyof typeof saved)[]).some((key) => current[key] !== saved[key]);
  const updateProject = useUpdateProject();
  const error = updateProject.error;
  const fieldError = (field: string) => (isApiError(error) ? error.fieldError(field) : undefined);
  const fieldNames = [
    'name',
    'checkCommand',
    'checkTimeoutSeconds',
    'setupCommand',
    'setupTimeoutSeconds',
    'taskTokenBudget',
    'sandboxAllowedHosts',
    'coderEngine',
    'maxToolCalls',
  ];
  const hostsError =
    fieldError('sandboxAllowedHosts') ??
    (isApiError(error)
      ? Array.from({ length: 100 }, (_, index) => fieldError(`sandboxAllowedHosts.${index}`)).find(Boolean)
      : undefined);
  // An error that names none of the fields (a network failure, a 404) is shown under the form.
  const formError =
    error && !fieldNames.some((field) => fieldError(field)) && !hostsError
      ? (error.message ?? 'Could not save')
      : undefined;

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // An empty budget is none; text that is no number at all would travel as null (NaN), so it is
    // refused here. The server validates the rest (and names the field): a blank timeout is 0.
    const tokens = Number(budget);
    const noBudget = budget.trim() === '';
    setBudgetNotANumber(!noBudget && !Number.isFinite(tokens));
    const toolCallsError = maxToolCallsError(maxToolCalls);
    setToolCallsInvalid(toolCallsError);
    if ((!noBudget && !Number.isFinite(tokens)) || toolCallsError) return;
    updateProject.mutate(
      {
        id: project.id,
        name,
        checkCommand: checkCommand.trim() === '' ? null : checkCommand,
        checkTimeoutSeconds: Number(timeout),
        setupCommand: setupCommand.trim() === '' ? null : setupCommand,
        setupTimeoutSeconds: Number(setupTimeout),
        taskTokenBudget: noBudget ? null : tokens,
        sandboxAllowedHosts: ownHosts
          ? hosts
              .split(/[\s,]+/)
              .map((host) => host.trim())
              .filter(Boolean)
          : null,
        coderEngine,
        maxToolCalls: Number(maxToolCalls),
      },
      { onSuccess: onDone },
    );
  }

  return (
    <form noValidate onSubmit={handleSubmit} className="mt-4 flex flex-col gap-4">
      <Field label="Name" error={fieldError('name')}>
        <Input
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={100}
          autoFocus
          onFocus={(event) => event.currentTarget.select()}
          data-testid="project-name-input"
        />
      </Field>
      <Field
        label="Setup command"
        error={fieldError('setupCommand')}
        hint="Runs with sh -c in every new worktree of a run before its first check, service or coder step, e.g. npm ci. What it installs is cached by the lockfiles' content. Empty: no setup."
      >
        <Textarea
          value={setupCommand}
          onChange={(event) => setSetupCommand(event.target.value)}
          maxLength={CHECK_COMMAND_MAX_LENGTH}
          rows={2}
          spellCheck={false}
          className="font-mono text-xs"
          placeholder="npm ci"
          data-testid="project-setup-command"
        />
      </Field>
      <SetupHelp projectId={project.id} empty={setupCommand.trim() === ''} onAccept={setSetupCommand} />
      <Field
        label="Setup timeout (seconds)"
        error={fieldError('setupTimeoutSeconds')}
        hint={`${SETUP_TIMEOUT_SECONDS.min}–${SETUP_TIMEOUT_SECONDS.max}; a setup that runs longer fails and pauses the run.`}
      >
        <Input
          type="number"
          inputMode="numeric"
          min={SETUP_TIMEOUT_SECONDS.min}
          max={SETUP_TIMEOUT_SECONDS.max}
          step={1}
          value={setupTimeout}
          onChange={(event) => setSetupTimeout(event.target.value)}
          data-testid="project-setup-timeout"
        />
      </Field>
      <Field
        label="Check command"
        error={fieldError('checkCommand')}
        hint="Runs with sh -c in the run's worktree once the subtasks are coded and after every fix (the coder may run it too), e.g. npm test. Empty: no check."
      >
        <Textarea
          value={checkCommand}
          onChange={(event) => setCheckCommand(event.target.value)}
          maxLength={CHECK_COMMAND_MAX_LENGTH}
          rows={2}
          spellCheck={false}
          className="font-mono text-xs"
          placeholder="npm test"
          data-testid="project-check-command"
        />
      </Field>
      <Field
        label="Check timeout (seconds)"
        error={fieldError('checkTimeoutSeconds')}
        hint={`${CHECK_TIMEOUT_SECONDS.min}–${CHECK_TIMEOUT_SECONDS.max}; a check that runs longer fails.`}
      >
        <Input
          type="number"
          inputMode="numeric"
          min={CHECK_TIMEOUT_SECONDS.min}
          max={CHECK_TIMEOUT_SECONDS.max}
          step={1}
          value={timeout}
          onChange={(event) => setTimeoutSeconds(event.target.value)}
          data-testid="project-check-timeout"
        />
      </Field>
      <Field
        label="Token budget per task"
        error={
          budgetNotANumber
            ? 'Enter a whole number of tokens, or leave it empty for no budget'
            : fieldError('taskTokenBudget')
        }
        hint="Input and output tokens a task may spend over all its runs. A call that could pass it is not made and the run pauses until you raise it. Empty: no budget."
      >
        <Input
          type="number"
          inputMode="numeric"
          min={TASK_TOKEN_BUDGET.min}
          max={TASK_TOKEN_BUDGET.max}
          step={1000}
          value={budget}
          placeholder="No budget"
          onChange={(event) => setBudget(event.target.value)}
          data-testid="project-token-budget"
        />
      </Field>
      <div>
        <Field
          label="Coder engine"
          error={fieldError('coderEngine')}
          hint="How the coder works on a task; a task may choose otherwise. One-shot suits models without tool use; Claude Code and Codex run in the sandbox."
        >
          <Select
            value={coderEngine}
            onChange={(event) => setCoderEngine(event.target.value as CoderEngineId)}
            data-testid="project-coder-engine"
          >
            <EngineOptions label={(engine) => CODER_ENGINE_LABELS[engine]} />
          </Select>
        </Field>
        <EngineNote engine={coderEngine} />
      </div>
      <Field
        label="Max tool calls per step"
        error={toolCallsInvalid ?? fieldError('maxToolCalls')}
        hint={`${MAX_TOOL_CALLS.min}–${MAX_TOOL_CALLS.max} (default ${MAX_TOOL_CALLS.default}). An agent step that needs more pauses the run; Retry goes on from there.`}
      >
        <Input
          type="number"
          inputMode="numeric"
          min={MAX_TOOL_CALLS.min}
          max={MAX_TOOL_CALLS.max}
          step={1}
          value={maxToolCalls}
          onChange={(event) => {
            setMaxToolCalls(event.target.value);
            setToolCallsInvalid(undefined);
          }}
          data-testid="project-max-tool-calls"
        />
      </Field>
      <div className="flex flex-col gap-2">
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={!ownHosts}
            onChange={(event) => setOwnHosts(!event.target.checked)}
            data-testid="project-network-server-list"
          />
          Checks and services reach the hosts of the server's allow-list
        </label>
        {ownHosts ? (
          <Field
            label="Hosts checks and services may reach"
            error={hostsError}
            hint="Within the server's allow-list: one host a line (registry.npmjs.org, *.example.com, host:443). Empty: no network at all."
          >
            <Textarea
              value={hosts}
              onChange={(event) => setHosts(event.target.value)}
              rows={3}
              spellCheck={false}
              className="font-mono text-xs"
              placeholder="registry.npmjs.org"
              data-testid="project-network-hosts"
            />
          </Field>
        ) : (
          hostsError && <p className="text-xs text-red-600">{hostsError}</p>
        )}
      </div>
      {formError && <p className="text-xs text-red-600">{formError}</p>}
      <DialogFooter className="mt-1">
        <span
          className="mr-auto text-xs text-zinc-500"
          aria-live="polite"
          data-testid="project-settings-status"
        >
          {dirty ? 'Unsaved changes' : 'No changes'}
        </span>
        <Button onClick={onDone}>Cancel</Button>
        <Button
          type="submit"
          variant="primary"
          loading={updateProject.isPending}
          data-testid="project-submit"
        >
          Save
        </Button>
      </DialogFooter>
    </form>
  );
}
