/** The project's setup command failed in the run's worktree: the run pauses (`setup_failed`), Retry runs it again. */
export class SetupFailedError extends Error {
  constructor(
    readonly reason: string,
    readonly tail: string,
  ) {
    super(
      `The project's setup command ${reason}. The end of its output:\n${tail.trimEnd() || '(no output)'}`,
    );
    this.name = 'SetupFailedError';
  }
}
