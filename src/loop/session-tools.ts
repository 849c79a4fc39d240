import { createReferenceTools, type ReferenceToolsOptions } from '../tools/reference-tools.js';
import { createWorktreeTools } from '../worktree/worktree-tools.js';
import type { Session } from './session.js';
import { wrapTools } from './wrap-tools.js';

/**
 * Every tool safeturn offers an agent, wrapped for a session: the reference tools (`read`, `write`,
 * `edit`, `apply_patch`, `bash`, behind the guard, the checkpoint, bash staging and the sandbox)
 * and the worktree tools (`worktree_create`, `worktree_merge`, `worktree_discard`, `worktree_list`).
 *
 * @example
 * ```ts
 * const tools = createSessionTools(session);
 * await session.beginTurn({ label: 'Try the risky refactor in a worktree' });
 * await tools.worktree_create.execute({ name: 'refactor' }, { root: session.root });
 * ```
 */
export function createSessionTools(session: Session, options: ReferenceToolsOptions = {}) {
  return wrapTools({
    session,
    tools: { ...createReferenceTools(options), ...createWorktreeTools(session.worktrees) },
  });
}
