import { FolderTree, KanbanSquare, LogOut, Network, ServerCog, Settings } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { Brand } from '@/web/components/brand';
import { ThemeToggle } from '@/web/components/theme-toggle';
import { useMe } from '@/web/features/auth/api/get-me';
import { useLogout } from '@/web/features/auth/api/logout';
import { ProjectSwitcher } from '@/web/features/projects/components/project-switcher';
import { cn } from '@/web/lib/cn';

interface AppShellProps {
  projectId: string | undefined;
  children: ReactNode;
}

const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  cn(
    'flex h-8 shrink-0 items-center gap-1.5 rounded-md px-2 text-xs font-medium transition-colors md:h-7 lg:px-2.5',
    'focus-visible:outline-2 focus-visible:outline-sky-500',
    isActive ? 'bg-white/12 text-white' : 'text-zinc-400 hover:bg-white/6 hover:text-zinc-100',
  );

/** A view's name: beside its icon on wide screens, for screen readers only below `lg` (icons only). */
const NavLabel = ({ children }: { children: string }) => (
  <span className="sr-only lg:not-sr-only">{children}</span>
);

/**
 * The dark header (project switcher, Board / Files / Graph / Services, Settings, the user) above the
 * page. Below `md` it takes two rows: the brand with Settings and log out, then the project switcher
 * with the views as icons; nothing in it is wider than the screen.
 */
export function AppShell({ projectId, children }: AppShellProps) {
  const me = useMe();
  const logout = useLogout();
  const navigate = useNavigate();
  const location = useLocation();
  // Switching projects keeps the view (Board, Files, Graph or Services).
  const view = /\/projects\/[^/]+\/(files|graph|services)$/.exec(location.pathname)?.[1];

  return (
    <div className="flex h-dvh flex-col">
      <header className="surface-dark shrink-0 bg-zinc-950 text-zinc-100" data-testid="app-header">
        <div className="flex flex-wrap items-center gap-x-3 px-3 md:h-12 md:flex-nowrap md:px-4">
          <Link
            to="/"
            aria-label="AutoCoder home"
            className="order-1 flex h-12 shrink-0 items-center rounded focus-visible:outline-2 focus-visible:outline-sky-500"
          >
            <Brand inverted />
          </Link>
          <div className="order-3 flex w-full min-w-0 items-center gap-2 pb-2 md:order-2 md:w-auto md:pb-0">
            <span aria-hidden="true" className="hidden h-5 w-px bg-zinc-800 md:block" />
            <ProjectSwitcher
              className="flex-1 md:flex-initial"
              currentProjectId={projectId}
              onSelect={(id) => navigate(view ? `/projects/${id}/${view}` : `/projects/${id}`)}
              onCreated={(project) => {
                toast.success('Project created', { description: project.name });
                navigate(`/projects/${project.id}`);
              }}
              onDeleted={(project) => {
                toast.success('Project deleted', { description: project.name });
                navigate('/', { replace: true });
              }}
            />
            {projectId && (
              <nav aria-label="Project views" className="flex shrink-0 items-center gap-1 md:ml-2">
                <NavLink
                  to={`/projects/${projectId}`}
                  end
                  className={navLinkClass}
                  data-testid="nav-board"
                  title="Board"
                >
                  <KanbanSquare aria-hidden="true" className="size-3.5" />
                  <NavLabel>Board</NavLabel>
                </NavLink>
                <NavLink
                  to={`/projects/${projectId}/files`}
                  className={navLinkClass}
                  data-testid="nav-files"
                  title="Files"
                >
                  <FolderTree aria-hidden="true" className="size-3.5" />
                  <NavLabel>Files</NavLabel>
                </NavLink>
                <NavLink
                  to={`/projects/${projectId}/graph`}
                  className={navLinkClass}
                  data-testid="nav-graph"
                  title="Graph"
                >
                  <Network aria-hidden="true" className="size-3.5" />
                  <NavLabel>Graph</NavLabel>
                </NavLink>
                <NavLink
                  to={`/projects/${projectId}/services`}
                  className={navLinkClass}
                  data-testid="nav-services"
                  title="Services"
                >
                  <ServerCog aria-hidden="true" className="size-3.5" />
                  <NavLabel>Services</NavLabel>
                </NavLink>
              </nav>
            )}
          </div>
          <div className="order-2 ml-auto flex min-w-0 items-center gap-1 md:order-3">
            <NavLink to="/settings" className={navLinkClass} data-testid="nav-settings" title="Settings">
              <Settings aria-hidden="true" className="size-3.5" />
              <NavLabel>Settings</NavLabel>
            </NavLink>
            <ThemeToggle />
            {me.data && (
              <button
                type="button"
                onClick={() =>
                  logout.mutate(undefined, { onSuccess: () => navigate('/login', { replace: true }) })
                }
                disabled={logout.isPending}
                aria-label={`Log out ${me.data.email}`}
                title="Log out"
                data-testid="logout"
                className="flex h-8 min-w-0 items-center gap-2 rounded-md px-2 text-xs text-zinc-400 hover:bg-white/8 hover:text-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500 disabled:opacity-60"
              >
                <span className="hidden max-w-44 truncate sm:block">{me.data.email}</span>
                <LogOut aria-hidden="true" className="size-3.5 shrink-0" />
              </button>
            )}
          </div>
        </div>
      </header>
      <main className="min-h-0 flex-1">{children}</main>
    </div>
  );
}
