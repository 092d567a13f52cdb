import { Search, X } from 'lucide-react';
import { TASK_CATEGORIES, type TaskCategory } from '@/contracts/tasks';
import { Input } from '@/web/components/ui/input';
import { Select } from '@/web/components/ui/select';
import { Spinner } from '@/web/components/ui/spinner';
import { CATEGORY_LABELS } from './task-badges';

interface FilterBarProps {
  category: TaskCategory | undefined;
  search: string;
  searching: boolean;
  onCategoryChange: (category: TaskCategory | undefined) => void;
  onSearchChange: (search: string) => void;
}

export function FilterBar({ category, search, searching, onCategoryChange, onSearchChange }: FilterBarProps) {
  return (
    <search className="flex min-w-0 flex-1 items-center gap-2">
      <div className="relative min-w-0 flex-1 sm:max-w-72">
        <Search
          aria-hidden="true"
          className="pointer-events-none absolute top-1/2 left-2.5 size-3.5 -translate-y-1/2 text-zinc-400"
        />
        <Input
          type="search"
          aria-label="Search tasks"
          placeholder="Search tasks…"
          value={search}
          onChange={(event) => onSearchChange(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && search) onSearchChange('');
          }}
          className="pr-8 pl-8 [&::-webkit-search-cancel-button]:hidden"
          data-testid="filter-search"
        />
        <span className="absolute top-1/2 right-2 flex -translate-y-1/2 items-center">
          {searching ? (
            <Spinner className="size-3.5 text-zinc-400" />
          ) : (
            search && (
              <button
                type="button"
                aria-label="Clear search"
                onClick={() => onSearchChange('')}
                className="rounded p-0.5 text-zinc-400 hover:text-zinc-700 focus-visible:outline-2 focus-visible:outline-sky-500"
              >
                <X aria-hidden="true" className="size-3.5" />
              </button>
            )
          )}
        </span>
      </div>
      <Select
        aria-label="Category"
        value={category ?? ''}
        onChange={(event) => onCategoryChange((event.target.value || undefined) as TaskCategory | undefined)}
        className="w-32 shrink-0 sm:w-40"
        data-testid="filter-category"
      >
        <option value="">All categories</option>
        {TASK_CATEGORIES.map((value) => (
          <option key={value} value={value}>
            {CATEGORY_LABELS[value]}
          </option>
        ))}
      </Select>
    </search>
  );
}
