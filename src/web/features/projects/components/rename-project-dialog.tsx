import { type FormEvent, useState } from 'react';
import type { Project } from '@/contracts/projects';
import { Button } from '@/web/components/ui/button';
import { Dialog, DialogContent, DialogFooter, DialogTitle } from '@/web/components/ui/dialog';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { isApiError } from '@/web/lib/api-client';
import { useUpdateProject } from '../api/update-project';

interface RenameProjectDialogProps {
  project: Project;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

export function RenameProjectDialog({ project, open, onOpenChange }: RenameProjectDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent aria-describedby={undefined}>
        <DialogTitle>Rename project</DialogTitle>
        <RenameProjectForm project={project} onDone={() => onOpenChange(false)} />
      </DialogContent>
    </Dialog>
  );
}

function RenameProjectForm({ project, onDone }: { project: Project; onDone: () => void }) {
  const [name, setName] = useState(project.name);
  const updateProject = useUpdateProject();
  const error = updateProject.error;
  const nameError = isApiError(error) ? (error.fieldError('name') ?? error.message) : undefined;

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    updateProject.mutate({ id: project.id, name }, { onSuccess: onDone });
  }

  return (
    <form noValidate onSubmit={handleSubmit} className="mt-4 flex flex-col gap-4">
      <Field label="Name" error={nameError}>
        <Input
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={100}
          autoFocus
          onFocus={(event) => event.currentTarget.select()}
          data-testid="project-name-input"
        />
      </Field>
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
