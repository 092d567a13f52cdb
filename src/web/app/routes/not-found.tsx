import { Compass } from 'lucide-react';
import { Link } from 'react-router';
import { EmptyState } from '@/web/components/ui/empty-state';
import { AppShell } from '../layout/app-shell';

export function NotFoundRoute() {
  return (
    <AppShell projectId={undefined}>
      <EmptyState
        icon={Compass}
        title="Page not found"
        action={
          <Link to="/" className="text-sm font-medium text-zinc-900 underline underline-offset-4">
            Back to the board
          </Link>
        }
      />
    </AppShell>
  );
}
