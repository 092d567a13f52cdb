import { Columns2, Rows3 } from 'lucide-react';
import { Button } from '@/web/components/ui/button';
import type { DiffMode } from './file-diff';

/** Unified or side by side; `testIdPrefix` names its buttons (`<prefix>-unified`, `<prefix>-split`). */
export function ModeToggle({
  mode,
  onChange,
  testIdPrefix,
}: {
  mode: DiffMode;
  onChange: (mode: DiffMode) => void;
  testIdPrefix: string;
}) {
  return (
    <fieldset className="flex items-center gap-1" aria-label="Diff layout">
      <Button
        size="sm"
        variant={mode === 'unified' ? 'primary' : 'secondary'}
        aria-pressed={mode === 'unified'}
        onClick={() => onChange('unified')}
        data-testid={`${testIdPrefix}-unified`}
      >
        <Rows3 aria-hidden="true" className="size-3.5" />
        Unified
      </Button>
      <Button
        size="sm"
        variant={mode === 'split' ? 'primary' : 'secondary'}
        aria-pressed={mode === 'split'}
        onClick={() => onChange('split')}
        data-testid={`${testIdPrefix}-split`}
      >
        <Columns2 aria-hidden="true" className="size-3.5" />
        Side by side
      </Button>
    </fieldset>
  );
}
