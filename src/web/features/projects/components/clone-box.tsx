import { Check, Copy, GitBranch } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';

/** AutoCoder's own remote of a project: where agents clone, pull and push (git smart HTTP). */
export function cloneUrlOf(origin: string, projectId: string): string {
  return `${origin}/git/${projectId}.git`;
}

/** The project's clone command, to copy, and how to authenticate (an agent token from Settings). */
export function CloneBox({ projectId }: { projectId: string }) {
  const command = `git clone ${cloneUrlOf(window.location.origin, projectId)}`;
  const [copied, setCopied] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(command);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // No clipboard (insecure origin): the command stays selectable.
    }
  }

  return (
    <section
      aria-label="Clone"
      data-testid="clone-box"
      className="w-full max-w-md rounded-lg border border-zinc-200 bg-zinc-50 p-3 text-left"
    >
      <p className="flex items-center gap-1.5 text-xs font-medium text-zinc-700">
        <GitBranch aria-hidden="true" className="size-3.5" /> Clone
      </p>
      <div className="mt-2 flex items-center gap-2">
        <code
          data-testid="clone-command"
          className="min-w-0 flex-1 truncate rounded border border-zinc-200 bg-white px-2 py-1 font-mono text-xs text-zinc-800 select-all"
          title={command}
        >
          {command}
        </code>
        <button
          type="button"
          onClick={() => void copy()}
          aria-label="Copy clone command"
          className="rounded p-1 text-zinc-500 hover:bg-zinc-200 hover:text-zinc-800"
        >
          {copied ? <Check className="size-4" /> : <Copy className="size-4" />}
        </button>
      </div>
      <p className="mt-2 text-xs text-zinc-500">
        Git asks for a password: use an agent token (any user name).{' '}
        <Link to="/settings" className="font-medium text-zinc-700 underline underline-offset-2">
          Create one in Settings
        </Link>
        . Pushes to the default branch update the project.
      </p>
    </section>
  );
}
