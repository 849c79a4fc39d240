import { SafeturnError, type SafeturnErrorOptions } from '../errors/safeturn-error.js';

/**
 * Stable codes of {@link WorktreeError}:
 * - `WORKTREE_NEEDS_GIT`: the workspace is not inside a git repository (or it has no commit yet);
 * - `WORKTREE_NOT_FOUND`: no worktree of that name is registered for this workspace;
 * - `WORKTREE_EXISTS`: a worktree (or its directory, or its branch) of that name already exists;
 * - `WORKTREE_INVALID_NAME`: the name (or the branch built from it) is not usable;
 * - `WORKTREE_BUSY`: another live process's session owns the worktree;
 * - `WORKTREE_INCOMPLETE`: the worktree's creation never finished (see `doctor`);
 * - `WORKTREE_CONFLICT`: a merge found conflicts and changed nothing ({@link WorktreeConflictError});
 * - `WORKTREE`: a git command failed.
 */
export type WorktreeErrorCode =
  | 'WORKTREE_NEEDS_GIT'
  | 'WORKTREE_NOT_FOUND'
  | 'WORKTREE_EXISTS'
  | 'WORKTREE_INVALID_NAME'
  | 'WORKTREE_BUSY'
  | 'WORKTREE_INCOMPLETE'
  | 'WORKTREE_CONFLICT'
  | 'WORKTREE';

/**
 * A worktree operation that could not be done. The agent tools return it to the model as a
 * `ToolFailure`; the manager API throws it. `data` carries the worktree name and, for git
 * failures, the command and its stderr.
 *
 * @example
 * ```ts
 * try { await manager.create({ name: 'spike' }); }
 * catch (error) { if (WorktreeError.isInstance(error) && error.code === 'WORKTREE_NEEDS_GIT') useCheckpointsOnly(); }
 * ```
 */
export class WorktreeError extends SafeturnError {
  declare readonly code: WorktreeErrorCode;

  constructor(code: WorktreeErrorCode, message: string, options: SafeturnErrorOptions = {}) {
    super(code, message, options);
    this.name = 'WorktreeError';
  }
}
