import type { Workspace } from '@/contracts/services';

/** "main · project" or the run's branch. */
export function workspaceLabel(workspace: Workspace): string {
  return workspace.kind === 'project' ? `${workspace.branch} · project` : workspace.branch;
}
