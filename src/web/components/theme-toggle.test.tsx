// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** A system setting the test can flip, as matchMedia('(prefers-color-scheme: dark)') reports it. */
function stubSystem(dark: boolean) {
  const listeners = new Set<() => void>();
  const query = {
    matches: dark,
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  };
  vi.stubGlobal('matchMedia', () => query);
  return {
    set(next: boolean) {
      query.matches = next;
      for (const listener of listeners) listener();
    },
  };
}

/** theme.ts keeps the choice at module level: each test loads it afresh, as a page load does. */
async function load() {
  vi.resetModules();
  const theme = await import('@/web/lib/theme');
  const { ThemeToggle } = await import('./theme-toggle');
  theme.initTheme();
  return { theme, ThemeToggle };
}

const html = () => document.documentElement;

beforeEach(() => {
  localStorage.clear();
  html().className = '';
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the theme', () => {
  it('follows the system setting until the person chooses, live', async () => {
    const system = stubSystem(true);
    await load();
    expect(html().classList.contains('dark')).toBe(true);
    expect(html().style.colorScheme).toBe('dark');
    act(() => system.set(false));
    expect(html().classList.contains('dark')).toBe(false);
  });

  it('cycles system → light → dark → system from the toggle, kept across a reload', async () => {
    stubSystem(true);
    const { ThemeToggle } = await load();
    render(<ThemeToggle />);
    const toggle = screen.getByTestId('theme-toggle');
    expect(toggle.getAttribute('aria-label')).toBe('Theme: system (dark). Switch to light');

    fireEvent.click(toggle);
    expect(html().classList.contains('dark')).toBe(false);
    expect(toggle.getAttribute('data-theme-preference')).toBe('light');
    expect(localStorage.getItem('autocoder-theme')).toBe('light');

    fireEvent.click(toggle);
    expect(html().classList.contains('dark')).toBe(true);
    cleanup();

    // A reload with the system now light: the stored choice wins.
    stubSystem(false);
    const reloaded = await load();
    expect(html().classList.contains('dark')).toBe(true);
    render(<reloaded.ThemeToggle />);
    fireEvent.click(screen.getByTestId('theme-toggle'));
    expect(localStorage.getItem('autocoder-theme')).toBeNull();
    expect(html().classList.contains('dark')).toBe(false);
  });

  it('ignores a stored value it does not know', async () => {
    localStorage.setItem('autocoder-theme', 'neon');
    stubSystem(false);
    const { theme } = await load();
    expect(html().classList.contains('dark')).toBe(false);
    theme.setThemePreference('dark');
    expect(html().classList.contains('dark')).toBe(true);
  });
});
