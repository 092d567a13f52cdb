import { Monitor, Moon, Sun } from 'lucide-react';
import { setThemePreference, type ThemePreference, useTheme } from '@/web/lib/theme';

const NEXT: Record<ThemePreference, ThemePreference> = { system: 'light', light: 'dark', dark: 'system' };
const NAME: Record<ThemePreference, string> = { system: 'system', light: 'light', dark: 'dark' };
const ICON = { system: Monitor, light: Sun, dark: Moon } as const;

/**
 * The header's theme switch: system → light → dark → system. Its name says what is in effect and
 * what a press does; the choice is kept in this browser.
 */
export function ThemeToggle() {
  const { preference, resolved } = useTheme();
  const Icon = ICON[preference];
  const now = preference === 'system' ? `system (${resolved})` : NAME[preference];
  const label = `Theme: ${now}. Switch to ${NAME[NEXT[preference]]}`;
  return (
    <button
      type="button"
      onClick={() => setThemePreference(NEXT[preference])}
      aria-label={label}
      title={label}
      data-testid="theme-toggle"
      data-theme-preference={preference}
      className="flex size-8 shrink-0 items-center justify-center rounded-md text-zinc-400 hover:bg-white/8 hover:text-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500"
    >
      <Icon aria-hidden="true" className="size-3.5" />
    </button>
  );
}
