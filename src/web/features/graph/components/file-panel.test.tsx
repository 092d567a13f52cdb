// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HeldLock } from '../utils/lock-state';
import { FilePanel, type FilePanelProps } from './file-panel';

afterEach(() => cleanup());

const writer: HeldLock = {
  agent: { id: 'tok-alice', name: 'Alice <img src=x onerror=alert(1)>' },
  status: 'WRITING',
  message: 'Rewrite <b>auth</b> & sessions.',
  since: Date.UTC(2026, 0, 1, 12, 30, 5),
};
const reader: HeldLock = {
  agent: { id: 'tok-bob', name: 'Bob' },
  status: 'READING',
  message: 'Reading the session shape.',
  since: Date.UTC(2026, 0, 1, 12, 40),
};

function renderPanel(over: Partial<FilePanelProps> = {}) {
  const props: FilePanelProps = {
    path: 'src/auth.ts',
    holders: [reader, writer],
    imports: ['src/db.ts'],
    importedBy: ['src/app.ts', 'src/session.ts'],
    colourOf: (id) => (id === 'tok-alice' ? '#7c3aed' : '#0891b2'),
    onSelect: vi.fn(),
    onZoom: vi.fn(),
    onClose: vi.fn(),
    ...over,
  };
  render(<FilePanel {...props} />);
  return props;
}

describe('FilePanel', () => {
  it('shows who holds the file, writer first: status, agent, message and since when', () => {
    renderPanel();
    expect(screen.getByTestId('file-panel-path').textContent).toBe('src/auth.ts');
    const locks = screen.getAllByTestId('file-lock');
    expect(locks.map((lock) => within(lock).getByTestId('file-lock-status').textContent)).toEqual([
      'WRITING',
      'READING',
    ]);
    const [first] = locks;
    if (!first) throw new Error('no lock shown');
    expect(within(first).getByTestId('file-lock-message').textContent).toBe(
      '“Rewrite <b>auth</b> & sessions.”',
    );
    const since = within(first).getByText((_, element) => element?.tagName === 'TIME');
    expect(since.getAttribute('dateTime')).toBe('2026-01-01T12:30:05.000Z');
  });

  it('shows agents’ text as text: no element comes from a name or a message', () => {
    renderPanel();
    const panel = screen.getByTestId('file-panel');
    expect(panel.querySelector('b, img')).toBeNull();
    expect(screen.getAllByTestId('file-lock-agent')[0]?.textContent).toBe(
      'Alice <img src=x onerror=alert(1)>',
    );
  });

  it('says when nobody holds the file', () => {
    renderPanel({ holders: undefined });
    expect(screen.getByTestId('file-unlocked').textContent).toBe('Nobody holds this file.');
    expect(screen.queryAllByTestId('file-lock')).toHaveLength(0);
  });

  it('lists imports and importers; a click selects one, and the buttons zoom and close', () => {
    const props = renderPanel({ imports: [] });
    expect(within(screen.getByTestId('file-imports')).getByText('None')).toBeTruthy();
    const importers = within(screen.getByTestId('file-importers')).getAllByRole('button');
    expect(importers.map((button) => button.textContent)).toEqual(['src/app.ts', 'src/session.ts']);
    fireEvent.click(importers[1] as HTMLElement);
    expect(props.onSelect).toHaveBeenCalledWith('src/session.ts');
    fireEvent.click(screen.getByRole('button', { name: 'Zoom to this file' }));
    expect(props.onZoom).toHaveBeenCalledWith('src/auth.ts');
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(props.onClose).toHaveBeenCalled();
  });
});
