import { AGENT_TYPES, type AgentType } from '@/contracts/pipeline';
import { AGENT_LABELS } from '@/contracts/run-lifecycle';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { MAX_TOKENS, MIN_TOKENS, type SettingsErrors, type SettingsForm } from '../utils/settings-form';

interface AgentModelFieldsProps {
  agents: SettingsForm['agents'];
  errors: SettingsErrors['agents'];
  onChange: (agent: AgentType, field: 'model' | 'maxTokens', value: string) => void;
}

/** Model and output budget of each agent. */
export function AgentModelFields({ agents, errors, onChange }: AgentModelFieldsProps) {
  return (
    <div className="flex flex-col gap-4">
      {AGENT_TYPES.map((agent) => (
        <fieldset key={agent} className="grid gap-3 sm:grid-cols-[1fr_9rem]">
          <legend className="mb-1.5 text-xs font-semibold text-zinc-800">{AGENT_LABELS[agent]}</legend>
          <Field label="Model" error={errors?.[agent]?.model}>
            <Input
              value={agents[agent].model}
              onChange={(event) => onChange(agent, 'model', event.target.value)}
              spellCheck={false}
              className="font-mono"
              data-testid={`settings-model-${agent}`}
            />
          </Field>
          <Field label="Max tokens" error={errors?.[agent]?.maxTokens}>
            <Input
              type="number"
              inputMode="numeric"
              min={MIN_TOKENS}
              max={MAX_TOKENS}
              step={256}
              value={agents[agent].maxTokens}
              onChange={(event) => onChange(agent, 'maxTokens', event.target.value)}
              className="tabular-nums"
              data-testid={`settings-max-tokens-${agent}`}
            />
          </Field>
        </fieldset>
      ))}
    </div>
  );
}
