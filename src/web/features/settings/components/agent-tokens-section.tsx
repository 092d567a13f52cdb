import { Check, Copy, KeyRound, Trash2 } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import type { AgentToken, CreatedAgentToken } from '@/contracts/coordination';
import { Button } from '@/web/components/ui/button';
import { ConfirmDialog } from '@/web/components/ui/confirm-dialog';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { isApiError } from '@/web/lib/api-client';
import { formatDateTime } from '@/web/lib/format';
import { useCreateAgentToken } from '../api/create-agent-token';
import { useAgentTokens } from '../api/get-agent-tokens';
import { useRevokeAgentToken } from '../api/revoke-agent-token';

/** The secret of a token just created: shown once, with a copy button. */
function NewToken({ created, onDone }: { created: CreatedAgentToken; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(created.token);
    setCopied(true);
  };
  return (
    <div
      className="flex flex-col gap-2 rounded-md border border-emerald-200 bg-emerald-50 p-3"
      data-testid="new-token"
    >
      <p className="text-xs text-emerald-900">
        Token <strong>{created.name}</strong> created. Copy it now: it is shown only once.
      </p>
      <div className="flex items-center gap-2">
        <code
          className="min-w-0 flex-1 truncate rounded bg-white px-2 py-1 font-mono text-xs text-zinc-900"
          data-testid="new-token-secret"
        >
          {created.token}
        </code>
        <Button size="sm" onClick={copy} data-testid="copy-token">
          {copied ? (
            <Check aria-hidden="true" className="size-3.5" />
          ) : (
            <Copy aria-hidden="true" className="size-3.5" />
          )}
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <p className="text-xs text-emerald-900">
        Agents send it as <code className="font-mono">Authorization: Bearer …</code>.
      </p>
      <Button size="sm" variant="ghost" className="w-fit" onClick={onDone}>
        Done
      </Button>
    </div>
  );
}

/** Settings → Agent tokens: one token per agent identity; create (shown once), list, revoke. */
export function AgentTokensSection() {
  const tokens = useAgentTokens();
  const create = useCreateAgentToken();
  const revoke = useRevokeAgentToken();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedAgentToken | null>(null);
  const [revoking, setRevoking] = useState<AgentToken | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name },
      {
        onSuccess: (token) => {
          setCreated(token);
          setName('');
        },
      },
    );
  };
  const nameError = isApiError(create.error) ? create.error.fieldError('name') : undefined;

  return (
    <section
      className="flex flex-col gap-4 rounded-lg border border-zinc-200 bg-white p-4 sm:p-5"
      data-testid="agent-tokens"
    >
      <div>
        <h2 className="text-sm font-semibold text-zinc-900">Agent tokens</h2>
        <p className="mt-1 text-xs text-zinc-500">
          Each token is one agent identity for file locks (check_status, post_status). The server keeps only a
          hash.
        </p>
      </div>

      {created && <NewToken created={created} onDone={() => setCreated(null)} />}

      <form onSubmit={submit} className="flex items-end gap-2" noValidate>
        <div className="flex-1">
          <Field label="Name" error={nameError}>
            <Input
              value={name}
              onChange={(event) => setName(event.target.value)}
              placeholder="Claude Code on my laptop"
              maxLength={100}
              data-testid="token-name"
            />
          </Field>
        </div>
        <Button type="submit" variant="primary" loading={create.isPending} data-testid="create-token">
          <KeyRound aria-hidden="true" className="size-3.5" />
          Create token
        </Button>
      </form>

      {tokens.data && tokens.data.length === 0 && <p className="text-xs text-zinc-500">No tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <ul className="divide-y divide-zinc-100 rounded-md border border-zinc-200" data-testid="token-list">
          {tokens.data.map((token) => (
            <li key={token.id} className="flex items-center gap-3 px-3 py-2" data-testid="token-row">
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm text-zinc-900">{token.name}</p>
                <p className="text-xs text-zinc-500">Created {formatDateTime(token.createdAt)}</p>
              </div>
              <Button
                size="sm"
                variant="ghost"
                onClick={() => setRevoking(token)}
                aria-label={`Revoke ${token.name}`}
                data-testid="revoke-token"
              >
                <Trash2 aria-hidden="true" className="size-3.5" />
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      )}

      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title="Revoke this token?"
        description={`Agents using “${revoking?.name ?? ''}” will be refused from now on.`}
        confirmLabel="Revoke"
        confirmTestId="confirm-revoke"
        pending={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSuccess: () => setRevoking(null) })}
      />
    </section>
  );
}
