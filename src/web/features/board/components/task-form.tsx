import { type FormEvent, useState } from 'react';
import type { CoderEngineId } from '@/contracts/projects';
import {
  STATUS_LABELS,
  TASK_CATEGORIES,
  TASK_PRIORITIES,
  type TaskCategory,
  type TaskPriority,
} from '@/contracts/tasks';
import { EngineNote, EngineOptions } from '@/web/components/engine-choice';
import { Button } from '@/web/components/ui/button';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { Select } from '@/web/components/ui/select';
import { Textarea } from '@/web/components/ui/textarea';
import { errorMessage, isApiError } from '@/web/lib/api-client';
import { CATEGORY_LABELS, engineName, PRIORITY_LABELS } from './task-badges';

export type InitialColumn = 'backlog' | 'spec';

export interface TaskFormValues {
  title: string;
  description: string;
  category: TaskCategory;
  priority: TaskPriority;
  status: InitialColumn;
  /** The task's own coder engine; null: the project's. Only in a form that shows the choice. */
  coderEngine?: CoderEngineId | null;
}

interface TaskFormProps {
  initialValues?: Partial<TaskFormValues>;
  /** Creating a task also picks its first column; an existing one moves on the board instead. */
  showColumn: boolean;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (values: TaskFormValues) => void;
  onCancel: () => void;
  /** Offer the choice of coder engine (editing a task): the project's own is the default. */
  engine?: { projectDefault: CoderEngineId | null } | undefined;
}

const defaults: TaskFormValues = {
  title: '',
  description: '',
  category: 'feature',
  priority: 'medium',
  status: 'backlog',
};

export function TaskForm({
  initialValues,
  showColumn,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
  engine,
}: TaskFormProps) {
  const [values, setValues] = useState<TaskFormValues>({ ...defaults, ...initialValues });
  const set = <K extends keyof TaskFormValues>(key: K, value: TaskFormValues[K]) =>
    setValues((current) => ({ ...current, [key]: value }));
  const fieldError = (path: string) => (isApiError(error) ? error.fieldError(path) : undefined);
  const knownFields = ['title', 'description', 'category', 'priority', 'status', 'coderEngine'];
  const formError = error && !knownFields.some((path) => fieldError(path)) ? errorMessage(error) : undefined;

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSubmit(values);
  }

  return (
    <form noValidate onSubmit={handleSubmit} className="flex flex-col gap-4">
      <Field label="Title" error={fieldError('title')}>
        <Input
          value={values.title}
          onChange={(event) => set('title', event.target.value)}
          maxLength={200}
          required
          autoFocus
          placeholder="What should be done?"
          data-testid="task-title-input"
        />
      </Field>
      <Field label="Description" error={fieldError('description')}>
        <Textarea
          value={values.description}
          onChange={(event) => set('description', event.target.value)}
          rows={6}
          placeholder="Context, acceptance criteria, links…"
          data-testid="task-description-input"
        />
      </Field>
      <div>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
          <Field label="Category" error={fieldError('category')}>
            <Select
              value={values.category}
              onChange={(event) => set('category', event.target.value as TaskCategory)}
              data-testid="task-category-select"
            >
              {TASK_CATEGORIES.map((category) => (
                <option key={category} value={category}>
                  {CATEGORY_LABELS[category]}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Priority" error={fieldError('priority')}>
            <Select
              value={values.priority}
              onChange={(event) => set('priority', event.target.value as TaskPriority)}
              data-testid="task-priority-select"
            >
              {TASK_PRIORITIES.map((priority) => (
                <option key={priority} value={priority}>
                  {PRIORITY_LABELS[priority]}
                </option>
              ))}
            </Select>
          </Field>
          {engine && (
            <Field label="Coder engine" error={fieldError('coderEngine')}>
              <Select
                value={values.coderEngine ?? ''}
                onChange={(event) =>
                  set('coderEngine', event.target.value === '' ? null : (event.target.value as CoderEngineId))
                }
                data-testid="task-coder-engine-select"
              >
                <option value="">
                  {engine.projectDefault
                    ? `Project default (${engineName(engine.projectDefault)})`
                    : 'Project default'}
                </option>
                <EngineOptions label={engineName} />
              </Select>
            </Field>
          )}
          {showColumn && (
            <Field label="Column" error={fieldError('status')}>
              <Select
                value={values.status}
                onChange={(event) => set('status', event.target.value as InitialColumn)}
                data-testid="task-status-select"
              >
                <option value="backlog">{STATUS_LABELS.backlog}</option>
                <option value="spec">{STATUS_LABELS.spec}</option>
              </Select>
            </Field>
          )}
        </div>
        {engine && <EngineNote engine={values.coderEngine ?? engine.projectDefault} />}
      </div>
      {formError && (
        <p
          role="alert"
          className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200 ring-inset"
        >
          {formError}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" loading={pending} data-testid="task-submit">
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
