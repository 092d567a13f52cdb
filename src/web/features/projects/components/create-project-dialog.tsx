import { FolderGit2, GitBranchPlus, Globe } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import type { Project } from '@/contracts/projects';
import { Button } from '@/web/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
} from '@/web/components/ui/dialog';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { errorMessage, isApiError } from '@/web/lib/api-client';
import { cn } from '@/web/lib/cn';
import { useCreateProject } from '../api/create-project';
import { useImportOptions } from '../api/get-import-options';

type Source = 'empty' | 'path' | 'url';

const sources = [
  { value: 'empty', label: 'New empty repository', icon: GitBranchPlus },
  { value: 'path', label: 'Local path', icon: FolderGit2 },
  { value: 'url', label: 'Git URL', icon: Globe },
] as const satisfies readonly { value: Source; label: string; icon: unknown }[];

/** "my-repo" from "/home/me/my-repo" or "https://host/org/my-repo.git". */
function nameFromLocation(location: string): string {
  const last =
    location
      .trim()
      .replace(/[/\\]+$/, '')
      .split(/[/\\:]/)
      .pop() ?? '';
  return last.replace(/\.git$/, '');
}

interface CreateProjectDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (project: Project) => void;
}

export function CreateProjectDialog({ open, onOpenChange, onCreated }: CreateProjectDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-lg">
        <DialogTitle>New project</DialogTitle>
        <DialogDescription>Each project is a board backed by its own git repository.</DialogDescription>
        <CreateProjectForm onCancel={() => onOpenChange(false)} onCreated={onCreated} />
      </DialogContent>
    </Dialog>
  );
}

function CreateProjectForm({
  onCancel,
  onCreated,
}: {
  onCancel: () => void;
  onCreated: (project: Project) => void;
}) {
  const [source, setSource] = useState<Source>('empty');
  const [name, setName] = useState('');
  const [importPath, setImportPath] = useState('');
  const [repoUrl, setRepoUrl] = useState('');
  const createProject = useCreateProject();
  // Until the server says otherwise, a path on the server is not offered.
  const localImport = useImportOptions().data?.localImport === true;
  const error = createProject.error;
  const fieldError = (path: string) => (isApiError(error) ? error.fieldError(path) : undefined);
  const location = source === 'path' ? importPath : source === 'url' ? repoUrl : '';
  const derivedName = nameFromLocation(location);
  const nameError = fieldError('name');
  const locationError = fieldError(source === 'path' ? 'importPath' : 'repoUrl');
  const formError = error && !nameError && !locationError ? errorMessage(error) : undefined;

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // The promise, not mutate's own onSuccess: that one is dropped when the dialog unmounts before
    // React Query notifies it (the list's update can re-render the switcher first on a busy machine).
    createProject
      .mutateAsync({
        name: name.trim() || derivedName,
        ...(source === 'path' ? { importPath: importPath.trim() } : {}),
        ...(source === 'url' ? { repoUrl: repoUrl.trim() } : {}),
      })
      .then(onCreated, () => {
        // Shown by the form (createProject.error) and the mutation's error toast.
      });
  }

  return (
    <form noValidate onSubmit={handleSubmit} className="mt-4 flex flex-col gap-4">
      <fieldset className="flex flex-col gap-1.5">
        <legend className="mb-1.5 text-xs font-medium text-zinc-700">Repository</legend>
        <div className="flex flex-col gap-1 rounded-lg bg-zinc-100 p-1 sm:flex-row">
          {sources.map(({ value, label, icon: Icon }) => {
            const disabled = value === 'path' && !localImport;
            return (
              <label
                key={value}
                title={disabled ? 'Turned off on this server' : undefined}
                className={cn(
                  'flex flex-1 cursor-pointer items-center justify-center gap-1.5 rounded-md px-2.5 py-1.5 text-xs font-medium whitespace-nowrap',
                  'text-zinc-600 has-focus-visible:outline-2 has-focus-visible:outline-sky-500',
                  source === value ? 'bg-white text-zinc-900 shadow-sm' : 'hover:text-zinc-900',
                  disabled && 'cursor-not-allowed opacity-50 hover:text-zinc-600',
                )}
              >
                <input
                  type="radio"
                  name="source"
                  value={value}
                  checked={source === value}
                  disabled={disabled}
                  onChange={() => setSource(value)}
                  className="sr-only"
                  data-testid={`project-source-${value}`}
                />
                <Icon aria-hidden="true" className="size-3.5" />
                {label}
              </label>
            );
          })}
        </div>
        {!localImport && (
          <p className="text-xs text-zinc-500" data-testid="project-local-import-off">
            Import from a path on the server is off. The operator can allow directories by setting{' '}
            <code>AUTOCODER_IMPORT_ROOTS</code>.
          </p>
        )}
      </fieldset>

      {source === 'path' && (
        <Field
          label="Path of a git repository on the server"
          error={locationError}
          hint="An absolute path inside a directory the operator allows. The repository is cloned; the original is left untouched."
        >
          <Input
            value={importPath}
            onChange={(event) => setImportPath(event.target.value)}
            placeholder="/home/me/code/my-app"
            autoComplete="off"
            spellCheck={false}
            data-testid="project-import-path"
          />
        </Field>
      )}
      {source === 'url' && (
        <Field
          label="Git URL"
          error={locationError}
          hint="HTTPS or SSH URL of a public repository: the server sends no credentials of its own."
        >
          <Input
            value={repoUrl}
            onChange={(event) => setRepoUrl(event.target.value)}
            placeholder="https://github.com/org/repo.git"
            autoComplete="off"
            spellCheck={false}
            data-testid="project-repo-url"
          />
        </Field>
      )}

      <Field label="Name" error={nameError}>
        <Input
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder={derivedName || 'My project'}
          maxLength={100}
          autoFocus
          data-testid="project-name-input"
        />
      </Field>

      {formError && (
        <p
          role="alert"
          className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200 ring-inset"
        >
          {formError}
        </p>
      )}

      <DialogFooter className="mt-1">
        <Button onClick={onCancel}>Cancel</Button>
        <Button
          type="submit"
          variant="primary"
          loading={createProject.isPending}
          data-testid="project-submit"
        >
          {createProject.isPending && source !== 'empty' ? 'Cloning…' : 'Create project'}
        </Button>
      </DialogFooter>
    </form>
  );
}
