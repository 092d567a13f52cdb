// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RUN_SETTINGS, useRunSettingsStore } from '@/web/lib/run-settings';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { SettingsView } from './settings-view';

beforeEach(() => {
  window.localStorage.clear();
  useRunSettingsStore.setState({ settings: DEFAULT_RUN_SETTINGS });
  stubFetch({ 'GET /api/tokens': { tokens: [] } });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const tokenInput = () => screen.getByTestId('settings-claude-code-token') as HTMLInputElement;

describe('the settings: Claude Code', () => {
  it('keeps a Claude Code token in this browser, hidden until shown', () => {
    renderAt(<SettingsView />);
    expect(screen.getByRole('heading', { name: 'Claude Code' })).toBeTruthy();
    const input = screen.getByLabelText('OAuth token (optional)') as HTMLInputElement;
    expect(input).toBe(tokenInput());
    expect(input.type).toBe('password');
    expect(input.getAttribute('aria-describedby')).toBeTruthy();
    fireEvent.change(input, { target: { value: ' sk-ant-oat01-abcdef ' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    expect(useRunSettingsStore.getState().settings.claudeCodeToken).toBe('sk-ant-oat01-abcdef');
    expect(window.localStorage.getItem('autocoder.run-settings.v1')).toContain('sk-ant-oat01-abcdef');
  });

  it('refuses a token that is not one line, and saves nothing', () => {
    renderAt(<SettingsView />);
    fireEvent.change(tokenInput(), { target: { value: 'not a token' } });
    fireEvent.click(screen.getByTestId('settings-save'));
    expect(tokenInput().getAttribute('aria-invalid')).toBe('true');
    expect(useRunSettingsStore.getState().settings.claudeCodeToken).toBe('');
  });
});

describe('the settings: unsaved changes', () => {
  it('says "No changes" right after loading stored settings, and "Unsaved changes" after an edit', () => {
    // Stored as the store keeps them (its keys in their own order), then read back.
    window.localStorage.setItem(
      'autocoder.run-settings.v1',
      JSON.stringify({ ...DEFAULT_RUN_SETTINGS, provider: 'simulator', scenario: 'slow=5' }),
    );
    useRunSettingsStore.setState({
      settings: { ...DEFAULT_RUN_SETTINGS, provider: 'simulator', scenario: 'slow=5' },
    });
    renderAt(<SettingsView />);
    expect(screen.getByTestId('settings-status').textContent).toBe('No changes');
    fireEvent.change(screen.getByTestId('settings-scenario'), { target: { value: 'slow=6' } });
    expect(screen.getByTestId('settings-status').textContent).toBe('Unsaved changes');
    fireEvent.change(screen.getByTestId('settings-scenario'), { target: { value: 'slow=5' } });
    expect(screen.getByTestId('settings-status').textContent).toBe('No changes');
  });

  it('says "No changes" with the defaults (nothing stored)', () => {
    renderAt(<SettingsView />);
    expect(screen.getByTestId('settings-status').textContent).toBe('No changes');
  });
});
