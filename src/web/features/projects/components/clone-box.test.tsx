// @vitest-environment happy-dom
import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderAt } from '@/web/testing/render';
import { CloneBox } from './clone-box';

afterEach(() => cleanup());

describe('CloneBox', () => {
  it('shows the project’s clone command on this server and points to Settings for a token', () => {
    renderAt(<CloneBox projectId="4b1c0c0e-0000-4000-8000-000000000001" />);
    expect(screen.getByTestId('clone-command').textContent).toBe(
      `git clone ${window.location.origin}/git/4b1c0c0e-0000-4000-8000-000000000001.git`,
    );
    expect(screen.getByRole('link', { name: /create one in settings/i }).getAttribute('href')).toBe(
      '/settings',
    );
  });
});
