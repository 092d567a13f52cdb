// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { useActivityStore } from '../stores/activity-store';
import { ActivitySheetButton } from './activity-sheet';

const P = '6f1c2a9e-0000-4000-8000-000000000006';

beforeEach(() => {
  useActivityStore.setState({ projectId: null, activity: { entries: [], held: {}, seen: 0 } });
  stubFetch({
    [`GET /api/projects/${P}/locks`]: { branch: 'main', locks: [] },
    [`GET /api/projects/${P}/activity`]: {
      hasMore: false,
      events: [
        {
          id: 1,
          type: 'lock-taken',
          data: {
            branch: 'main',
            agent: { id: '9a1f3c7e-2b4d-4e6f-8a0b-1c2d3e4f5a6b', name: 'Export a farewell' },
            files: ['src/x.ts'],
            status: 'WRITING',
            message: 'Create src/x.ts.',
            timestamp: Date.UTC(2026, 0, 1, 12, 0),
            taskId: 't-building',
          },
        },
      ],
    },
  });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function Search() {
  return <output data-testid="search">{useLocation().search}</output>;
}

describe('the Activity sheet (the feed where the board has no room for it)', () => {
  it('opens the same feed, and closes when a task’s link is followed, for its drawer', async () => {
    renderAt(
      <>
        <ActivitySheetButton projectId={P} />
        <Search />
      </>,
      { url: `/projects/${P}?column=spec` },
    );
    expect(screen.queryByRole('dialog')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Activity' }));
    const sheet = await screen.findByRole('dialog', { name: 'Activity' });
    const entry = await within(sheet).findByTestId('activity-entry');
    expect(entry.textContent).toContain('Export a farewell locked (WRITING) src/x.ts');

    fireEvent.click(within(sheet).getByTestId('activity-task-link'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByTestId('search').textContent).toBe('?column=spec&task=t-building');
  });
});
