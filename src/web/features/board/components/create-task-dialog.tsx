import type { Task } from '@/contracts/tasks';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '@/web/components/ui/dialog';
import { useCreateTask } from '../api/create-task';
import { type InitialColumn, TaskForm } from './task-form';

interface CreateTaskDialogProps {
  projectId: string;
  open: boolean;
  initialColumn: InitialColumn;
  onOpenChange: (open: boolean) => void;
  onCreated: (task: Task) => void;
}

export function CreateTaskDialog({
  projectId,
  open,
  initialColumn,
  onOpenChange,
  onCreated,
}: CreateTaskDialogProps) {
  const createTask = useCreateTask();
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) createTask.reset();
        onOpenChange(next);
      }}
    >
      <DialogContent className="max-w-xl" data-testid="task-dialog">
        <DialogTitle>New task</DialogTitle>
        <DialogDescription>Agents pick tasks up once they are specified.</DialogDescription>
        <div className="mt-4">
          <TaskForm
            showColumn
            initialValues={{ status: initialColumn }}
            submitLabel="Create task"
            pending={createTask.isPending}
            error={createTask.error}
            onCancel={() => onOpenChange(false)}
            onSubmit={(values) =>
              createTask.mutate(
                { projectId, ...values, title: values.title.trim(), description: values.description.trim() },
                {
                  onSuccess: (task) => {
                    createTask.reset();
                    onCreated(task);
                  },
                },
              )
            }
          />
        </div>
      </DialogContent>
    </Dialog>
  );
}
