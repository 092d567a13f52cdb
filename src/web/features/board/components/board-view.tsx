import { Plus, SearchX } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from 'sonner';
import type { CoderEngineId } from '@/contracts/projects';
import {
  TASK_CATEGORIES,
  TASK_STATUSES,
  type TaskCard,
  type TaskCategory,
  type TaskStatus,
} from '@/contracts/tasks';
import { Button } from '@/web/components/ui/button';
import { EmptyState } from '@/web/components/ui/empty-state';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { type TaskFilters, useTasks } from '../api/get-tasks';
import { useMoveTask } from '../api/move-task';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { tasksFromColumns } from '../utils/board-columns';
import { Board } from './board';
import { type BoardSlots, BoardSlotsProvider } from './board-slots';
import { CreateTaskDialog } from './create-task-dialog';
import { FilterBar } from './filter-bar';
import { TaskDrawer } from './task-drawer';

function parseCategory(value: string | null): TaskCategory | undefined {
  return (TASK_CATEGORIES as readonly string[]).includes(value ?? '') ? (value as TaskCategory) : undefined;
}

/** The column a phone shows (`?column=`); Backlog when none or an unknown one is named. */
function parseColumn(value: string | null): TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value ?? '') ? (value as TaskStatus) : 'backlog';
}

interface BoardViewProps {
  projectId: string;
  /** Other features' content on cards and in the drawer, placed by the app. */
  slots?: BoardSlots;
  /** The project's coder engine, the default a task's own choice is offered against. */
  projectCoderEngine?: CoderEngineId | null | undefined;
}

const NO_SLOTS: BoardSlots = {};

/**
 * The board page: filters in the URL (?category=&q=), the open task too (?task=), and the column a
 * phone shows (?column=, Backlog by default).
 */
export function BoardView({ projectId, slots = NO_SLOTS, projectCoderEngine = null }: BoardViewProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const category = parseCategory(searchParams.get('category'));
  const q = searchParams.get('q') ?? '';
  const openTaskId = searchParams.get('task') ?? undefined;
  const phoneColumn = parseColumn(searchParams.get('column'));
  const [searchInput, setSearchInput] = useState(q);
  const debouncedSearch = useDebouncedValue(searchInput, 250);
  const [creating, setCreating] = useState(false);

  const updateParams = (changes: Record<string, string | undefined>) =>
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true },
    );

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a settled search should touch the URL.
  useEffect(() => {
    if (debouncedSearch.trim() !== q) updateParams({ q: debouncedSearch.trim() || undefined });
  }, [debouncedSearch]);

  const filters: TaskFilters = { category, q: q || undefined };
  const tasks = useTasks(projectId, filters);
  const moveTask = useMoveTask(projectId, filters);
  const filtered = Boolean(category || q);
  const openTask = (task: TaskCard) => updateParams({ task: task.id });
  const showColumn = (status: TaskStatus) =>
    updateParams({ column: status === 'backlog' ? undefined : status });

  return (
    <BoardSlotsProvider slots={slots}>
      <div className="flex h-full min-h-0 flex-col">
        <div className="flex flex-wrap items-center gap-2 px-4 py-3">
          <FilterBar
            category={category}
            search={searchInput}
            searching={
              searchInput.trim() !== debouncedSearch.trim() || (tasks.isFetching && tasks.isPlaceholderData)
            }
            onCategoryChange={(value) => updateParams({ category: value })}
            onSearchChange={setSearchInput}
          />
          <Button variant="primary" onClick={() => setCreating(true)} data-testid="new-task">
            <Plus aria-hidden="true" className="size-4" />
            <span className="sr-only sm:not-sr-only">New task</span>
          </Button>
          {slots.toolbar}
        </div>

        <div className="min-h-0 flex-1">
          {tasks.data ? (
            <div className="flex h-full flex-col">
              {filtered && tasks.data.length === 0 && (
                <EmptyState
                  icon={SearchX}
                  className="py-3"
                  title="No tasks match these filters"
                  action={
                    <Button
                      size="sm"
                      onClick={() => {
                        setSearchInput('');
                        updateParams({ q: undefined, category: undefined });
                      }}
                    >
                      Clear filters
                    </Button>
                  }
                />
              )}
              <div className="min-h-0 flex-1">
                <Board
                  tasks={tasks.data}
                  onOpenTask={openTask}
                  phoneColumn={phoneColumn}
                  onPhoneColumnChange={showColumn}
                  onMove={(drop) => {
                    const position = drop.columns[drop.status].indexOf(drop.task.id);
                    moveTask({
                      task: drop.task,
                      status: drop.status,
                      position: drop.position,
                      afterId: drop.columns[drop.status][position - 1],
                      beforeId: drop.columns[drop.status][position + 1],
                      optimisticTasks: tasksFromColumns(tasks.data, drop.columns),
                    });
                  }}
                />
              </div>
            </div>
          ) : tasks.isError ? (
            <ErrorState
              title="Could not load the board"
              error={tasks.error}
              onRetry={() => void tasks.refetch()}
              retrying={tasks.isFetching}
            />
          ) : (
            <LoadingState label="Loading tasks…" />
          )}
        </div>

        <CreateTaskDialog
          projectId={projectId}
          open={creating}
          initialColumn="backlog"
          onOpenChange={setCreating}
          onCreated={(task) => {
            setCreating(false);
            // A phone shows the column the new task is in.
            if (task.status !== phoneColumn) showColumn(task.status);
            toast.success('Task created', { description: task.title });
          }}
        />
        <TaskDrawer
          taskId={openTaskId}
          onClose={() => updateParams({ task: undefined })}
          projectCoderEngine={projectCoderEngine}
        />
      </div>
    </BoardSlotsProvider>
  );
}
