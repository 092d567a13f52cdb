import { ChevronsUpDown, Pencil, Plus, Trash2 } from 'lucide-react';
import { useState } from 'react';
import type { Project } from '@/contracts/projects';
import { Button } from '@/web/components/ui/button';
import { ConfirmDialog } from '@/web/components/ui/confirm-dialog';
import { cn } from '@/web/lib/cn';
import { useDeleteProject } from '../api/delete-project';
import { useProjects } from '../api/get-projects';
import { CreateProjectDialog } from './create-project-dialog';
import { ProjectSettingsDialog } from './project-settings-dialog';

interface ProjectSwitcherProps {
  currentProjectId: string | undefined;
  onSelect: (projectId: string) => void;
  onCreated: (project: Project) => void;
  onDeleted: (project: Project) => void;
  className?: string;
}

type OpenDialog = 'create' | 'settings' | 'delete' | null;

/** Choose, create, import, rename and delete projects; sits in the dark app header. */
export function ProjectSwitcher({
  currentProjectId,
  onSelect,
  onCreated,
  onDeleted,
  className,
}: ProjectSwitcherProps) {
  const projects = useProjects();
  const deleteProject = useDeleteProject();
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const current = projects.data?.find((project) => project.id === currentProjectId);
  const closeDialog = (open: boolean) => {
    if (!open) setDialog(null);
  };

  return (
    <div className={cn('flex min-w-0 items-center gap-1', className)}>
      {/* On a phone the list takes the row's free width (and truncates); from `md` its own width, 7–14rem. */}
      <div className="relative min-w-0 flex-1 md:min-w-28 md:flex-initial">
        <label htmlFor="project-switcher" className="sr-only">
          Project
        </label>
        <select
          id="project-switcher"
          data-testid="project-switcher"
          value={current?.id ?? ''}
          disabled={!projects.data}
          onChange={(event) => onSelect(event.target.value)}
          className="h-8 w-full min-w-0 cursor-pointer appearance-none truncate rounded-md border border-zinc-700 bg-zinc-900 pr-7 pl-2.5 text-sm font-medium text-zinc-100 hover:border-zinc-600 focus:outline-2 focus:outline-sky-500 md:max-w-56 md:min-w-28"
        >
          {!current && <option value="">{projects.isPending ? 'Loading…' : 'Select a project'}</option>}
          {projects.data?.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </select>
        <ChevronsUpDown
          aria-hidden="true"
          className="pointer-events-none absolute top-1/2 right-2 size-3.5 -translate-y-1/2 text-zinc-400"
        />
      </div>
      <Button
        variant="ghost-dark"
        size="icon"
        aria-label="New project"
        title="New project or import a repository"
        onClick={() => setDialog('create')}
        data-testid="project-create"
      >
        <Plus aria-hidden="true" className="size-4" />
      </Button>
      <Button
        variant="ghost-dark"
        size="icon"
        aria-label="Project settings"
        title="Project settings: name, check command"
        disabled={!current}
        onClick={() => setDialog('settings')}
        data-testid="project-settings"
      >
        <Pencil aria-hidden="true" className="size-3.5" />
      </Button>
      <Button
        variant="ghost-dark"
        size="icon"
        aria-label="Delete project"
        title="Delete project"
        disabled={!current}
        onClick={() => setDialog('delete')}
        data-testid="project-delete"
      >
        <Trash2 aria-hidden="true" className="size-3.5" />
      </Button>

      <CreateProjectDialog
        open={dialog === 'create'}
        onOpenChange={closeDialog}
        onCreated={(project) => {
          setDialog(null);
          onCreated(project);
        }}
      />
      {current && (
        <>
          <ProjectSettingsDialog project={current} open={dialog === 'settings'} onOpenChange={closeDialog} />
          <ConfirmDialog
            open={dialog === 'delete'}
            onOpenChange={closeDialog}
            title={`Delete “${current.name}”?`}
            description="Its board, tasks and repository checkout are removed. This cannot be undone."
            confirmLabel="Delete project"
            pending={deleteProject.isPending}
            onConfirm={() =>
              deleteProject.mutate(current.id, {
                onSuccess: () => onDeleted(current),
                onSettled: () => setDialog(null),
              })
            }
          />
        </>
      )}
    </div>
  );
}
