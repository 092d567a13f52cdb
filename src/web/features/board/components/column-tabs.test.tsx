// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskStatus } from '@/contracts/tasks';
import { ColumnTabs } from './column-tabs';

afterEach(cleanup);

function Tabs() {
  const [selected, setSelected] = useState<TaskStatus>('backlog');
  return (
    <ColumnTabs
      counts={{ backlog: 3, spec: 1, building: 0, review: 0, done: 2 }}
      selected={selected}
      onSelect={setSelected}
    />
  );
}

const selectedTab = () =>
  screen.getAllByRole('tab').find((tab) => tab.getAttribute('aria-selected') === 'true');

describe('the column tabs (the board on a phone)', () => {
  it('name every column with its count, and control its section', () => {
    render(<Tabs />);
    expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual([
      'Backlog 3 tasks',
      'Spec 1 task',
      'Building 0 tasks',
      'Review 0 tasks',
      'Done 2 tasks',
    ]);
    expect(screen.getByRole('tab', { name: 'Spec 1 task' }).getAttribute('aria-controls')).toBe(
      'board-column-spec',
    );
    expect(selectedTab()?.id).toBe('column-tab-backlog');
  });

  it('choose a column by a press, or with the arrow keys, Home and End', () => {
    render(<Tabs />);
    fireEvent.click(screen.getByTestId('column-tab-review'));
    expect(selectedTab()?.id).toBe('column-tab-review');
    fireEvent.keyDown(selectedTab() as HTMLElement, { key: 'ArrowRight' });
    expect(selectedTab()?.id).toBe('column-tab-done');
    expect(document.activeElement?.id).toBe('column-tab-done');
    fireEvent.keyDown(selectedTab() as HTMLElement, { key: 'ArrowRight' });
    expect(selectedTab()?.id).toBe('column-tab-backlog');
    fireEvent.keyDown(selectedTab() as HTMLElement, { key: 'ArrowLeft' });
    expect(selectedTab()?.id).toBe('column-tab-done');
    fireEvent.keyDown(selectedTab() as HTMLElement, { key: 'Home' });
    expect(selectedTab()?.id).toBe('column-tab-backlog');
    fireEvent.keyDown(selectedTab() as HTMLElement, { key: 'End' });
    expect(selectedTab()?.id).toBe('column-tab-done');
    // Only the chosen tab is in the page's tab order.
    expect(screen.getAllByRole('tab').map((tab) => tab.tabIndex)).toEqual([-1, -1, -1, -1, 0]);
  });
});
