import { type FormEvent, useState } from 'react';
import {
  CHECK_COMMAND_MAX_LENGTH,
  CHECK_TIMEOUT_SECONDS,
  type Project,
  TASK_TOKEN_BUDGET,
} from '@/contracts/projects';
import { Button } from '@/web/components/ui/button';
import { Dialog, DialogContent, DialogFooter, DialogTitle } from '@/web/components/ui/dialog';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { Textarea } from '@/web/components/ui/textarea';
import { isApiError } from '@/web/lib/api-client';
import { useUpdateProject } from '../api/update-project';

interface ProjectSettingsDialogProps {
  project: Project;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** A project's name, its repository's own check (command and timeout), its token budget per task and its sandboxes' network. */
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

function ProjectSettingsForm({ project, onDone }: { project: Project; onDone: () => void }) {
  const [name, setName] = useState(project.name);
  const [checkCommand, setCheckCommand] = useState(project.checkCommand ?? '');
  const [timeout, setTimeoutSeconds] = useState(String(project.checkTimeoutSeconds));
  const [budget, setBudget] = useState(
    project.taskTokenBudget === null ? '' : String(project.taskTokenBudget),
  );
  const [budgetNotANumber, setBudgetNotANumber] = useState(false);
  // null: the server's own allow-list; a list (one host a line; empty: no network at all).
  const [ownHosts, setOwnHosts] = useState(project.sandboxAllowedHosts !== null);
  const [hosts, setHosts] = useState((project.sandboxAllowedHosts ?? []).join('\n'));
  const updateProject = useUpdateProject();
  const error = updateProject.error;
  const fieldError = (field: string) => (isApiError(error) ? error.fieldError(field) : undefined);
  const fieldNames = [
    'name',
    'checkCommand',
    'checkTimeoutSeconds',
    'taskTokenBudget',
    'sandboxAllowedHosts',
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
    if (!noBudget && !Number.isFinite(tokens)) return;
    updateProject.mutate(
      {
        id: project.id,
        name,
        checkCommand: checkCommand.trim() === '' ? null : checkCommand,
        checkTimeoutSeconds: Number(timeout),
        taskTokenBudget: noBudget ? null : tokens,
        sandboxAllowedHosts: ownHosts
          ? hosts
              .split(/[\s,]+/)
              .map((host) => host.trim())
              .filter(Boolean)
          : null,
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
        label="Check command"
        error={fieldError('checkCommand')}
        hint="Runs with sh -c in the run's worktree after every coding and fixing step, e.g. npm test. Empty: no check."
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
