import { Columns2, Rows3 } from 'lucide-react';
import { Button } from '@/web/components/ui/button';
import type { DiffMode } from '../review/file-diff';

/** Unified or side by side, for every file of the page. */
export function ModeToggle({ mode, onChange }: { mode: DiffMode; onChange: (mode: DiffMode) => void }) {
  return (
    <fieldset className="flex items-center gap-1" aria-label="Diff layout">
      <Button
        size="sm"
        variant={mode === 'unified' ? 'primary' : 'secondary'}
        aria-pressed={mode === 'unified'}
        onClick={() => onChange('unified')}
        data-testid="review-mode-unified"
      >
        <Rows3 aria-hidden="true" className="size-3.5" />
        Unified
      </Button>
      <Button
        size="sm"
        variant={mode === 'split' ? 'primary' : 'secondary'}
        aria-pressed={mode === 'split'}
        onClick={() => onChange('split')}
        data-testid="review-mode-split"
      >
        <Columns2 aria-hidden="true" className="size-3.5" />
        Side by side
      </Button>
    </fieldset>
  );
}
