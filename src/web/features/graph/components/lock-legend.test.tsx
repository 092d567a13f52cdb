// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LockLegend } from './lock-legend';

afterEach(() => cleanup());

describe('LockLegend', () => {
  it('lists each holder by name with its files; a file zooms the graph to it', () => {
    const onPick = vi.fn();
    render(
      <LockLegend
        entries={[
          { agent: { id: 'a', name: '<i>Alice</i>' }, colour: '#7c3aed', writing: ['src/a.ts'], reading: [] },
          {
            agent: { id: 'b', name: 'Bob' },
            colour: '#0891b2',
            writing: [],
            reading: ['src/a.ts', 'src/b.ts'],
          },
        ]}
        onPick={onPick}
      />,
    );
    const holders = screen.getAllByTestId('legend-holder');
    expect(holders.map((h) => within(h).getByTestId('legend-holder-name').textContent)).toEqual([
      '<i>Alice</i>',
      'Bob',
    ]);
    expect(screen.getByTestId('lock-legend').querySelector('i')).toBeNull();
    expect(holders[0]?.textContent).toContain('1 writing');
    expect(holders[1]?.textContent).toContain('2 reading');
    const bobFiles = within(holders[1] as HTMLElement).getAllByTestId('legend-file');
    expect(bobFiles.map((f) => f.dataset.status)).toEqual(['READING', 'READING']);
    fireEvent.click(bobFiles[1] as HTMLElement);
    expect(onPick).toHaveBeenCalledWith('src/b.ts');
  });

  it('lists five files of a holder, then all of them on demand', () => {
    const files = Array.from({ length: 8 }, (_, i) => `src/f${i}.ts`);
    render(
      <LockLegend
        entries={[{ agent: { id: 'a', name: 'Alice' }, colour: '#7c3aed', writing: files, reading: [] }]}
        onPick={vi.fn()}
      />,
    );
    expect(screen.getAllByTestId('legend-file')).toHaveLength(5);
    fireEvent.click(screen.getByText('All 8 files'));
    expect(screen.getAllByTestId('legend-file').map((f) => f.textContent)).toEqual(files);
    fireEvent.click(screen.getByText('Fewer'));
    expect(screen.getAllByTestId('legend-file')).toHaveLength(5);
  });

  it('says so when nothing is locked', () => {
    render(<LockLegend entries={[]} onPick={vi.fn()} />);
    expect(screen.getByText(/No file is locked/)).toBeTruthy();
  });
});
