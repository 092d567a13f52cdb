// @vitest-environment happy-dom
import { act, cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setThemePreference } from '@/web/lib/theme';
import { GRAPH_PALETTES, type Selection, styleNode } from '../utils/graph-palette';
import { colourLocks } from '../utils/holder-colours';
import type { HeldLock } from '../utils/lock-state';
import { LockLegend } from './lock-legend';

afterEach(() => {
  cleanup();
  setThemePreference('system');
});

/** A colour as the page paints it (the DOM's own spelling), to compare colours written differently. */
function painted(colour: string | undefined): string {
  const probe = document.createElement('span');
  probe.style.backgroundColor = colour ?? '';
  return probe.style.backgroundColor;
}

const swatches = (scope: HTMLElement, meaning: string) =>
  within(scope)
    .getAllByTestId('legend-swatch')
    .filter((swatch) => swatch.dataset.meaning === meaning)
    .map((swatch) => swatch.style.backgroundColor);

const held = (id: string, name: string, status: HeldLock['status']): HeldLock => ({
  agent: { id, name },
  status,
  message: `${name} works.`,
  since: 1,
});

describe('LockLegend colours', () => {
  it('paints every swatch in the colour the canvas draws for what it stands for, in either theme', () => {
    const { nodeColours, legend } = colourLocks({
      branch: 'main',
      files: {
        'src/written.ts': [held('tok-alice', 'Alice', 'WRITING')],
        'src/read.ts': [held('tok-bob', 'Bob', 'READING')],
      },
    });
    render(<LockLegend entries={legend} onPick={vi.fn()} />);
    const [alice, bob] = screen.getAllByTestId('legend-holder') as [HTMLElement, HTMLElement];
    const all = screen.getByTestId('lock-legend');

    for (const theme of ['light', 'dark'] as const) {
      act(() => setThemePreference(theme));
      // What the canvas draws for a file (graph-canvas.tsx's nodeReducer), here as a swatch would paint it.
      const drawn = (id: string, selection: Selection | null = null) =>
        painted(
          styleNode(id, { label: id, lock: nodeColours.get(id) }, selection, GRAPH_PALETTES[theme]).color,
        );

      expect(swatches(alice, 'holder')).toEqual([drawn('src/written.ts')]);
      expect(swatches(alice, 'writing')).toEqual([drawn('src/written.ts')]);
      expect(swatches(bob, 'holder')).toEqual([drawn('src/read.ts')]);
      expect(swatches(bob, 'reading')).toEqual([drawn('src/read.ts')]);
      expect(swatches(all, 'unlocked')).toEqual([drawn('src/free.ts')]);
      expect(swatches(all, 'dimmed')).toEqual([drawn('src/free.ts', { id: 'src/read.ts', near: new Set() })]);
    }
    // The faded colour is the theme's own: the legend followed the switch.
    expect(painted(GRAPH_PALETTES.dark.dimmed)).not.toBe(painted(GRAPH_PALETTES.light.dimmed));
    expect(swatches(all, 'dimmed')).toEqual([painted(GRAPH_PALETTES.dark.dimmed)]);
  });
});
