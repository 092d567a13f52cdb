import type { Workspace } from '@/contracts/services.js';
import type { Logger } from '@/server/lib/logger.js';
import { holdCheckout, releaseCheckout } from '../workspace/checkout-hold.js';

/** What a hold needs of a workspace and its checkout: only a project's own checkout is held. */
type HeldWorkspace = Pick<Workspace, 'id' | 'kind' | 'branch'> & { dir: string };

/**
 * The project checkouts held while services run in them, counted per workspace: the first
 * service to start holds the checkout at its commit, the last one to end lets it follow its
 * branch again (`workspace/checkout-hold.ts`). Run worktrees are never held: a merge does not move
 * them.
 */
export class CheckoutHolds {
  /** Per workspace: the services holding it, and its holds and releases, in the order they were asked. */
  private readonly state = new Map<string, { count: number; tail: Promise<void> }>();

  constructor(private readonly logger: Logger) {}

  /**
   * Holds a project's checkout for one more service (the first one takes the hold); resolves once
   * it is held, null when the workspace is not a project's own checkout.
   */
  acquire(workspace: HeldWorkspace): Promise<void> | null {
    if (workspace.kind !== 'project') return null;
    const { branch } = workspace;
    const state = this.stateOf(workspace.id);
    state.count += 1;
    if (state.count === 1) {
      // A hold that fails leaves the checkout as before (it follows its branch): said, not fatal.
      state.tail = state.tail.then(() =>
        holdCheckout(workspace.dir, branch).catch((error: unknown) =>
          this.logger.warn('the project checkout could not be held for its services', {
            workspaceId: workspace.id,
            error,
          }),
        ),
      );
    }
    return state.tail;
  }

  /** One service fewer holds the checkout; the last one's end lets it follow its branch again. */
  release(workspace: HeldWorkspace): void {
    const state = this.state.get(workspace.id);
    if (!state || state.count === 0) return;
    state.count -= 1;
    if (state.count > 0) return;
    const { logger } = this;
    state.tail = state.tail.then(() =>
      releaseCheckout(workspace.dir).then(
        (outcome) => {
          if (!outcome.released && outcome.reason === 'local-edits')
            logger.warn('the project checkout stays held: local edits would be overwritten', {
              workspaceId: workspace.id,
              git: outcome.message,
            });
        },
        (error: unknown) =>
          logger.warn('the project checkout could not be released', { workspaceId: workspace.id, error }),
      ),
    );
  }

  /** Resolves when every hold and release asked for so far is done (shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.state.values()].map((state) => state.tail));
  }

  private stateOf(workspaceId: string) {
    let state = this.state.get(workspaceId);
    if (!state) {
      state = { count: 0, tail: Promise.resolve() };
      this.state.set(workspaceId, state);
    }
    return state;
  }
}
