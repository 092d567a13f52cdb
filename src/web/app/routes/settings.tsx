import { SettingsView } from '@/web/features/settings/components/settings-view';
import { AppShell } from '../layout/app-shell';

export function SettingsRoute() {
  return (
    <AppShell projectId={undefined}>
      <title>Settings · AutoCoder</title>
      <SettingsView />
    </AppShell>
  );
}
