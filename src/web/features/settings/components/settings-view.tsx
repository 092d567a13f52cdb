import { ArrowLeft, FlaskConical, ShieldCheck } from 'lucide-react';
import { type FormEvent, type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import { type AgentType, PROVIDER_LABELS, PROVIDERS, type ProviderId } from '@/contracts/pipeline';
import { Button } from '@/web/components/ui/button';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { Select } from '@/web/components/ui/select';
import { effectiveProvider, useRunSettingsStore } from '@/web/lib/run-settings';
import {
  defaultAgents,
  fromForm,
  hasErrors,
  type SettingsErrors,
  type SettingsForm,
  sameSettings,
  toForm,
  validateForm,
} from '../utils/settings-form';
import { AgentModelFields } from './agent-model-fields';
import { AgentTokensSection } from './agent-tokens-section';
import { SecretInput } from './secret-input';

const KEY_NOTICE = 'Stored in this browser only; sent with each pipeline request, never saved on the server.';

function Section({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="flex flex-col gap-4 rounded-lg border border-zinc-200 bg-white p-4 sm:p-5">
      <div>
        <h2 className="text-sm font-semibold text-zinc-900">{title}</h2>
        {description && <div className="mt-1 text-xs text-zinc-500">{description}</div>}
      </div>
      {children}
    </section>
  );
}

/** /settings: which provider runs the agents, its key, the models, and the simulator's scenario. */
export function SettingsView() {
  const saved = useRunSettingsStore((state) => state.settings);
  const save = useRunSettingsStore((state) => state.save);
  const [form, setForm] = useState<SettingsForm>(() => toForm(saved));
  const [errors, setErrors] = useState<SettingsErrors>({});
  const [outcome, setOutcome] = useState<'saved' | 'invalid' | null>(null);
  const provider = form.provider ?? effectiveProvider(fromForm(form));
  // Compared field by field: the stored copy's keys come in another order than the form's.
  const dirty = !sameSettings(fromForm(form), saved);

  const update = (changes: Partial<SettingsForm>) => {
    setOutcome(null);
    setForm((current) => ({ ...current, ...changes }));
  };
  const updateAgent = (agent: AgentType, field: 'model' | 'maxTokens', value: string) => {
    setOutcome(null);
    setForm((current) => ({
      ...current,
      agents: { ...current.agents, [agent]: { ...current.agents[agent], [field]: value } },
    }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateForm(form);
    setErrors(found);
    if (hasErrors(found)) {
      setOutcome('invalid');
      return;
    }
    save(fromForm(form));
    setOutcome('saved');
  };

  return (
    <div className="h-full overflow-y-auto">
      <form
        onSubmit={submit}
        noValidate
        className="mx-auto flex max-w-2xl flex-col gap-4 px-4 py-6 sm:py-8"
        data-testid="settings-form"
      >
        <div className="flex flex-col gap-1">
          <Link
            to="/"
            className="flex w-fit items-center gap-1 text-xs text-zinc-500 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-sky-500"
          >
            <ArrowLeft aria-hidden="true" className="size-3.5" />
            Back to the board
          </Link>
          <h1 className="text-lg font-semibold text-zinc-900">Settings</h1>
          <p className="text-sm text-zinc-500">How the Planner, Coder and Reviewer agents run your tasks.</p>
        </div>

        <Section title="Agent provider">
          <Field
            label="Provider"
            hint={
              provider === 'simulator'
                ? 'Scripted agents that need no key and no network: for trying AutoCoder out. Their output is not AI.'
                : undefined
            }
          >
            <Select
              value={provider}
              onChange={(event) => update({ provider: event.target.value as ProviderId })}
              data-testid="settings-provider"
            >
              {PROVIDERS.map((id) => (
                <option key={id} value={id}>
                  {PROVIDER_LABELS[id]}
                </option>
              ))}
            </Select>
          </Field>
          {provider === 'simulator' && (
            <p className="flex items-start gap-2 rounded-md bg-violet-50 px-3 py-2 text-xs text-violet-800">
              <FlaskConical aria-hidden="true" className="mt-px size-3.5 shrink-0" />
              Runs are labelled “Simulated agents (offline demo)” everywhere they appear.
            </p>
          )}
        </Section>

        <Section
          title="Anthropic"
          description={
            <span className="flex items-start gap-1.5">
              <ShieldCheck aria-hidden="true" className="mt-px size-3.5 shrink-0 text-emerald-600" />
              {KEY_NOTICE}
            </span>
          }
        >
          <Field
            label="API key"
            error={errors.anthropicKey}
            hint="Without a key here, the server's own ANTHROPIC_API_KEY is used if its operator set one."
          >
            <SecretInput
              value={form.anthropicKey}
              onChange={(event) => update({ anthropicKey: event.target.value })}
              placeholder="sk-ant-…"
              data-testid="settings-anthropic-key"
            />
          </Field>
        </Section>

        <Section
          title="OpenAI-compatible endpoint"
          description="Ollama, vLLM, LM Studio or any server speaking the OpenAI chat API. The key is kept like the Anthropic one. The Codex engine uses this endpoint and key too; it needs the Responses API."
        >
          <Field label="Base URL" error={errors.openaiBaseUrl} hint="e.g. http://localhost:11434/v1">
            <Input
              type="url"
              value={form.openaiBaseUrl}
              onChange={(event) => update({ openaiBaseUrl: event.target.value })}
              placeholder="http://localhost:11434/v1"
              spellCheck={false}
              data-testid="settings-openai-base-url"
            />
          </Field>
          <Field label="API key (optional)">
            <SecretInput
              value={form.openaiKey}
              onChange={(event) => update({ openaiKey: event.target.value })}
              data-testid="settings-openai-key"
            />
          </Field>
        </Section>

        <Section
          title="Claude Code"
          description={
            <span className="flex items-start gap-1.5">
              <ShieldCheck aria-hidden="true" className="mt-px size-3.5 shrink-0 text-emerald-600" />
              {KEY_NOTICE}
            </span>
          }
        >
          <Field
            label="OAuth token (optional)"
            error={errors.claudeCodeToken}
            hint="Used by the Claude Code engine instead of the Anthropic API key, with the Anthropic provider; made with `claude setup-token`."
          >
            <SecretInput
              value={form.claudeCodeToken}
              onChange={(event) => update({ claudeCodeToken: event.target.value })}
              placeholder="sk-ant-oat01-…"
              data-testid="settings-claude-code-token"
            />
          </Field>
        </Section>

        <Section
          title="Models"
          description="Per agent, for Anthropic and OpenAI-compatible runs. Use model names your provider serves."
        >
          <AgentModelFields agents={form.agents} errors={errors.agents} onChange={updateAgent} />
          <Button
            size="sm"
            variant="ghost"
            className="w-fit"
            onClick={() => update({ agents: defaultAgents() })}
          >
            Reset to defaults
          </Button>
        </Section>

        <details className="group rounded-lg border border-zinc-200 bg-white">
          <summary className="cursor-pointer px-4 py-3 text-sm font-semibold text-zinc-900 focus-visible:outline-2 focus-visible:outline-sky-500 sm:px-5">
            Advanced: simulator scenario
          </summary>
          <div className="flex flex-col gap-3 border-t border-zinc-200 px-4 py-4 sm:px-5">
            <Field
              label="Scenario"
              error={errors.scenario}
              hint="Only for simulated runs, for demos and tests. Comma-separated, e.g. review-fails=1, error=429@coder, slow=50."
            >
              <Input
                value={form.scenario}
                onChange={(event) => update({ scenario: event.target.value })}
                placeholder="review-fails=1,error=429@coder"
                spellCheck={false}
                className="font-mono"
                data-testid="settings-scenario"
              />
            </Field>
          </div>
        </details>

        <div className="sticky bottom-0 -mx-4 flex items-center justify-end gap-3 border-t border-zinc-200 bg-zinc-50/95 px-4 py-3 backdrop-blur">
          <span
            className={outcome === 'invalid' ? 'text-xs text-red-600' : 'text-xs text-zinc-500'}
            aria-live="polite"
            data-testid="settings-status"
          >
            {outcome === 'invalid'
              ? 'Fix the fields marked in red, then save.'
              : outcome === 'saved' && !dirty
                ? `Saved. Pipelines run with ${PROVIDER_LABELS[provider]}.`
                : dirty
                  ? 'Unsaved changes'
                  : 'No changes'}
          </span>
          <Button type="submit" variant="primary" data-testid="settings-save">
            Save settings
          </Button>
        </div>
      </form>
      <div className="mx-auto max-w-2xl px-4 pb-8">
        <AgentTokensSection />
      </div>
    </div>
  );
}
