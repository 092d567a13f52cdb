import { FolderTree, KanbanSquare, LogOut, Network, ServerCog, Settings } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { Brand } from '@/web/components/brand';
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
    'flex h-7 items-center gap-1.5 rounded-md px-2.5 text-xs font-medium transition-colors',
    'focus-visible:outline-2 focus-visible:outline-sky-500',
    isActive ? 'bg-white/12 text-white' : 'text-zinc-400 hover:bg-white/6 hover:text-zinc-100',
  );

/** The dark header (project switcher, Board / Files / Graph / Services, Settings, the user) above the page. */
export function AppShell({ projectId, children }: AppShellProps) {
  const me = useMe();
  const logout = useLogout();
  const navigate = useNavigate();
  const location = useLocation();
  // Switching projects keeps the view (Board, Files, Graph or Services).
  const view = /\/projects\/[^/]+\/(files|graph|services)$/.exec(location.pathname)?.[1];

  return (
    <div className="flex h-dvh flex-col">
      <header className="shrink-0 bg-zinc-950 text-zinc-100">
        <div className="flex flex-wrap items-center gap-x-3 px-3 md:h-12 md:flex-nowrap md:px-4">
          <Link
            to="/"
            aria-label="AutoCoder home"
            className="order-1 flex h-12 items-center rounded focus-visible:outline-2 focus-visible:outline-sky-500"
          >
            <Brand inverted />
          </Link>
          <div className="order-3 flex w-full min-w-0 items-center gap-2 pb-2 md:order-2 md:w-auto md:pb-0">
            <span aria-hidden="true" className="hidden h-5 w-px bg-zinc-800 md:block" />
            <ProjectSwitcher
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
              <nav aria-label="Project views" className="ml-auto flex items-center gap-1 md:ml-2">
                <NavLink to={`/projects/${projectId}`} end className={navLinkClass} data-testid="nav-board">
                  <KanbanSquare aria-hidden="true" className="size-3.5" />
                  Board
                </NavLink>
                <NavLink to={`/projects/${projectId}/files`} className={navLinkClass} data-testid="nav-files">
                  <FolderTree aria-hidden="true" className="size-3.5" />
                  Files
                </NavLink>
                <NavLink to={`/projects/${projectId}/graph`} className={navLinkClass} data-testid="nav-graph">
                  <Network aria-hidden="true" className="size-3.5" />
                  Graph
                </NavLink>
                <NavLink
                  to={`/projects/${projectId}/services`}
                  className={navLinkClass}
                  data-testid="nav-services"
                >
                  <ServerCog aria-hidden="true" className="size-3.5" />
                  Services
                </NavLink>
              </nav>
            )}
          </div>
          <div className="order-2 ml-auto flex min-w-0 items-center gap-1 md:order-3">
            <NavLink to="/settings" className={navLinkClass} data-testid="nav-settings" title="Settings">
              <Settings aria-hidden="true" className="size-3.5" />
              <span className="sr-only lg:not-sr-only">Settings</span>
            </NavLink>
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
                <span className="max-w-44 truncate">{me.data.email}</span>
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
