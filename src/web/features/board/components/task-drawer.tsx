import { ArrowRight, Pencil, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import type { CoderEngineId } from '@/contracts/projects';
import { MANUAL_TRANSITIONS, STATUS_LABELS, type Task } from '@/contracts/tasks';
import { Badge } from '@/web/components/ui/badge';
import { Button } from '@/web/components/ui/button';
import { ConfirmDialog } from '@/web/components/ui/confirm-dialog';
import { Dialog, DialogTitle, SheetContent } from '@/web/components/ui/dialog';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { cn } from '@/web/lib/cn';
import { formatDateTime } from '@/web/lib/format';
import { useDeleteTask } from '../api/delete-task';
import { useTask } from '../api/get-task';
import { useSetTaskStatus } from '../api/move-task';
import { useUpdateTask } from '../api/update-task';
import { useBoardSlots } from './board-slots';
import {
  CATEGORY_LABELS,
  CategoryBadge,
  engineName,
  PRIORITY_LABELS,
  PriorityBadge,
  statusDot,
} from './task-badges';
import { TaskForm } from './task-form';

interface TaskDrawerProps {
  taskId: string | undefined;
  onClose: () => void;
  /** The project's coder engine: what a task without its own runs with. Null: not known (yet). */
  projectCoderEngine?: CoderEngineId | null | undefined;
}

/** The side sheet for one task: read it, edit it, move it, delete it — and whatever the app adds (its pipeline). */
export function TaskDrawer({ taskId, onClose, projectCoderEngine = null }: TaskDrawerProps) {
  return (
    <Dialog open={Boolean(taskId)} onOpenChange={(open) => !open && onClose()}>
      <SheetContent
        data-testid="task-drawer"
        aria-describedby={undefined}
        className="max-sm:border-l-0 sm:max-w-3xl"
      >
        {taskId && (
          <TaskDrawerBody
            key={taskId}
            taskId={taskId}
            onClose={onClose}
            projectCoderEngine={projectCoderEngine}
          />
        )}
      </SheetContent>
    </Dialog>
  );
}

interface TaskViewProps {
  onClose: () => void;
  projectCoderEngine: CoderEngineId | null;
}

function TaskDrawerBody({ taskId, ...props }: TaskViewProps & { taskId: string }) {
  const task = useTask(taskId);
  if (task.data) return <TaskDetails task={task.data} {...props} />;
  return (
    <>
      <DialogTitle className="sr-only">Task</DialogTitle>
      {task.isError ? (
        <ErrorState
          className="flex-1"
          title="Could not load the task"
          error={task.error}
          onRetry={() => void task.refetch()}
          retrying={task.isFetching}
        />
      ) : (
        <LoadingState className="flex-1" label="Loading task…" />
      )}
    </>
  );
}

const noRunActive = (_taskId: string) => false;

function TaskDetails({ task, onClose, projectCoderEngine }: TaskViewProps & { task: Task }) {
  const [editing, setEditing] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const updateTask = useUpdateTask();
  const deleteTask = useDeleteTask();
  const setStatus = useSetTaskStatus();
  const slots = useBoardSlots();
  const section = slots.taskSection?.(task);
  const useRunActive = slots.useTaskRunActive ?? noRunActive;
  const runActive = useRunActive(task.id);

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="border-b border-zinc-200 px-5 pt-4 pb-4">
        <div className="flex items-center gap-2 text-xs text-zinc-500">
          <span className={cn('size-2 rounded-full', statusDot[task.status])} aria-hidden="true" />
          <span data-testid="task-status">{STATUS_LABELS[task.status]}</span>
        </div>
        <DialogTitle className="mt-1.5 text-lg leading-snug break-words">{task.title}</DialogTitle>
        <div className="mt-2 flex flex-wrap items-center gap-1">
          <CategoryBadge category={task.category} />
          <PriorityBadge priority={task.priority} />
        </div>
        {!editing && (
          <div className="mt-4 flex flex-wrap items-center gap-2">
            <Button size="sm" onClick={() => setEditing(true)} data-testid="task-edit">
              <Pencil aria-hidden="true" className="size-3" />
              Edit
            </Button>
            {runActive && MANUAL_TRANSITIONS[task.status].length > 0 && (
              <span className="text-xs text-zinc-500" data-testid="task-moves-locked">
                The pipeline moves this task while it runs
              </span>
            )}
            {(runActive ? [] : MANUAL_TRANSITIONS[task.status]).map((status) => (
              <Button
                key={status}
                size="sm"
                loading={setStatus.isPending && setStatus.variables?.status === status}
                onClick={() => setStatus.mutate({ task, status })}
                data-testid={`task-move-${status}`}
              >
                <ArrowRight aria-hidden="true" className="size-3" />
                Move to {STATUS_LABELS[status]}
              </Button>
            ))}
            <Button
              size="sm"
              variant="ghost"
              className="ml-auto text-red-600 hover:bg-red-50 hover:text-red-700"
              onClick={() => setConfirmingDelete(true)}
              data-testid="task-delete"
            >
              <Trash2 aria-hidden="true" className="size-3" />
              Delete
            </Button>
          </div>
        )}
      </div>

      <div className="flex min-h-0 flex-1 flex-col gap-6 overflow-y-auto px-4 py-4 sm:px-5">
        {editing && (
          <TaskForm
            showColumn={false}
            initialValues={{
              title: task.title,
              description: task.description,
              category: task.category,
              priority: task.priority,
              // A server without engines leaves the field out: the project's.
              coderEngine: task.coderEngine ?? null,
            }}
            engine={{ projectDefault: projectCoderEngine }}
            submitLabel="Save changes"
            pending={updateTask.isPending}
            error={updateTask.error}
            onCancel={() => {
              updateTask.reset();
              setEditing(false);
            }}
            onSubmit={(values) =>
              updateTask.mutate(
                {
                  id: task.id,
                  title: values.title.trim(),
                  description: values.description.trim(),
                  category: values.category,
                  priority: values.priority,
                  coderEngine: values.coderEngine ?? null,
                },
                {
                  onSuccess: () => {
                    setEditing(false);
                    toast.success('Task saved');
                  },
                },
              )
            }
          />
        )}
        {/* Stays mounted while editing, so the pipeline's live connection is not dropped. */}
        {section}
        {!editing && (
          <TaskFacts task={task} showSubtasks={!section} projectCoderEngine={projectCoderEngine} />
        )}
      </div>

      <ConfirmDialog
        open={confirmingDelete}
        onOpenChange={setConfirmingDelete}
        title="Delete this task?"
        description={`“${task.title}” will be removed from the board. This cannot be undone.`}
        confirmLabel="Delete task"
        pending={deleteTask.isPending}
        onConfirm={() =>
          deleteTask.mutate(task, {
            onSuccess: () => {
              setConfirmingDelete(false);
              toast.success('Task deleted');
              onClose();
            },
          })
        }
      />
    </div>
  );
}

function TaskFacts({
  task,
  showSubtasks,
  projectCoderEngine,
}: {
  task: Task;
  showSubtasks: boolean;
  projectCoderEngine: CoderEngineId | null;
}) {
  const engine = task.coderEngine
    ? engineName(task.coderEngine)
    : projectCoderEngine
      ? `Project default (${engineName(projectCoderEngine)})`
      : 'Project default';
  const facts = [
    ['Status', STATUS_LABELS[task.status]],
    ['Category', CATEGORY_LABELS[task.category]],
    ['Priority', PRIORITY_LABELS[task.priority]],
    ['Coder engine', engine],
    ['Created', formatDateTime(task.createdAt)],
    ['Updated', formatDateTime(task.updatedAt)],
  ] as const;
  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="task-description-heading">
        <h3 id="task-description-heading" className="mb-1.5 text-xs font-medium text-zinc-500">
          Description
        </h3>
        {task.description ? (
          <p
            className="text-sm leading-relaxed break-words whitespace-pre-wrap text-zinc-800"
            data-testid="task-description"
          >
            {task.description}
          </p>
        ) : (
          <p className="text-sm text-zinc-400 italic">No description</p>
        )}
      </section>
      <dl className="grid grid-cols-[7rem_1fr] gap-x-3 gap-y-2 text-sm">
        {facts.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-zinc-500">{label}</dt>
            <dd className="text-zinc-800">{value}</dd>
          </div>
        ))}
      </dl>
      {showSubtasks && task.subtasks && task.subtasks.length > 0 && (
        <section aria-labelledby="task-subtasks-heading">
          <h3 id="task-subtasks-heading" className="mb-1.5 text-xs font-medium text-zinc-500">
            Subtasks
          </h3>
          <ol className="flex flex-col gap-1.5">
            {task.subtasks.map((subtask) => (
              <li key={subtask.id} className="flex items-start gap-2 text-sm text-zinc-800">
                <Badge className="tabular-nums">{subtask.order}</Badge>
                {subtask.title}
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}
