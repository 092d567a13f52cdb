import { useSyncExternalStore } from 'react';

/** What the person chose: follow the system's setting, or one theme whatever the system says. */
export type ThemePreference = 'system' | 'light' | 'dark';
export type ResolvedTheme = 'light' | 'dark';

const STORAGE_KEY = 'autocoder-theme';
const PREFERENCES: readonly ThemePreference[] = ['system', 'light', 'dark'];
const listeners = new Set<() => void>();

function darkQuery(): MediaQueryList | null {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function'
    ? window.matchMedia('(prefers-color-scheme: dark)')
    : null;
}

function readPreference(): ThemePreference {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return PREFERENCES.includes(stored as ThemePreference) ? (stored as ThemePreference) : 'system';
  } catch {
    // Storage can be refused (private modes, policies): the system's setting then.
    return 'system';
  }
}

let preference: ThemePreference = typeof window === 'undefined' ? 'system' : readPreference();

function resolve(choice: ThemePreference): ResolvedTheme {
  if (choice !== 'system') return choice;
  return darkQuery()?.matches ? 'dark' : 'light';
}

let snapshot = { preference, resolved: resolve(preference) };

/** Puts the resolved theme on <html> (the `dark` class the styles key on, and `color-scheme`). */
function apply(): void {
  snapshot = { preference, resolved: resolve(preference) };
  if (typeof document !== 'undefined') {
    const root = document.documentElement;
    root.classList.toggle('dark', snapshot.resolved === 'dark');
    root.style.colorScheme = snapshot.resolved;
  }
  for (const listener of listeners) listener();
}

/**
 * Applies the stored choice before the first render and follows the system's setting while the
 * choice is "system". Called once from main.tsx.
 */
export function initTheme(): void {
  apply();
  darkQuery()?.addEventListener('change', () => {
    if (preference === 'system') apply();
  });
  // Another tab changed the choice.
  window.addEventListener('storage', (event) => {
    if (event.key !== STORAGE_KEY) return;
    preference = readPreference();
    apply();
  });
}

export function setThemePreference(next: ThemePreference): void {
  preference = next;
  try {
    if (next === 'system') localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // Not kept across reloads where storage is refused; applied all the same.
  }
  apply();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const getSnapshot = () => snapshot;

/** The person's choice and the theme it resolves to now; re-renders when either changes. */
export function useTheme(): { preference: ThemePreference; resolved: ResolvedTheme } {
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}

/** The theme in effect ('light' or 'dark'), for what is drawn outside CSS (canvas colours). */
export function useResolvedTheme(): ResolvedTheme {
  return useTheme().resolved;
}
