import path from 'node:path';
import { acquireLock } from '../core/lock.js';
import { createWorktree } from './create-worktree.js';
import { discardWorktree } from './discard-worktree.js';
import { doctorWorktrees } from './doctor.js';
import { listWorktrees } from './list-worktrees.js';
import { mergeWorktree } from './merge-worktree.js';
import { type ProjectWorktreeDirs, projectWorktreeDirs, worktreeNameSchema } from './registry.js';
import type { WorktreeHost, WorktreeManager } from './types.js';
import { WorktreeError } from './worktree-error.js';

function checkName(name: unknown): void {
  if (!worktreeNameSchema.safeParse(name).success) {
    throw new WorktreeError('WORKTREE_INVALID_NAME', `Invalid worktree name ${JSON.stringify(name)}.`, {
      data: { name },
    });
  }
}

function checkStrategy(strategy: unknown): void {
  if (strategy !== undefined && strategy !== 'ours' && strategy !== 'theirs' && strategy !== 'markers') {
    throw new WorktreeError(
      'WORKTREE',
      `Unknown merge strategy ${JSON.stringify(strategy)}: use 'ours', 'theirs' or 'markers'.`,
      {
        data: { strategy },
      },
    );
  }
}

/**
 * Creates the worktree layer of one session. Operations on a workspace's worktrees are
 * serialised across processes by a lock file in the registry folder.
 *
 * - `create` makes `<home>/worktrees/<projectId>/<name>` on branch `safeturn/<session>/<name>`,
 *   carries the dirty tree, locks it (`safeturn pid <pid>`) and calls `host.setActiveRoot`.
 * - `merge` writes the worktree's changes into the workspace as uncommitted changes, every write
 *   through `host.beforeWrite` / `host.afterWrite`; then the session works in the workspace again.
 * - `discard` removes folder, git entry and branch; the active root falls back to the workspace.
 *
 * @param host - the session's side: workspace, home, session id, checkpoint seam, active root.
 * @returns the manager; it holds no resources between calls.
 * @throws (from its methods) WorktreeError with the codes listed on {@link WorktreeError}.
 * @example
 * ```ts
 * const worktrees = createWorktreeManager(host);
 * await worktrees.create({ name: 'spike' });
 * // ... the agent works in the worktree ...
 * const report = await worktrees.merge({ name: 'spike' });
 * await worktrees.discard({ name: 'spike' });
 * ```
 */
export function createWorktreeManager(host: WorktreeHost): WorktreeManager {
  let active: string | undefined;
  const locked = async <Result>(
    purpose: string,
    work: (dirs: ProjectWorktreeDirs) => Promise<Result>,
    abortSignal?: AbortSignal,
  ) => {
    const dirs = await projectWorktreeDirs(host.home, host.workspace);
    const lock = await acquireLock(path.join(dirs.registry, '.lock'), {
      purpose: `worktree ${purpose}`,
      ...(abortSignal ? { abortSignal } : {}),
    });
    try {
      return await work(dirs);
    } finally {
      await lock.release();
    }
  };
  const deactivate = (name: string) => {
    if (active !== name) return;
    active = undefined;
    host.setActiveRoot(undefined);
  };
  return {
    async create(options = {}) {
      if (options.name !== undefined) checkName(options.name);
      const { created } = await locked(
        'create',
        (dirs) => createWorktree(host, dirs, options),
        options.abortSignal,
      );
      active = created.name;
      host.setActiveRoot(created.root);
      return created;
    },
    async merge(options) {
      checkName(options.name);
      checkStrategy(options.strategy);
      // The session leaves the worktree before the writes, so a seam that resolves paths against the
      // active root writes the workspace; a refused merge keeps the agent in the worktree to fix it.
      return locked(
        'merge',
        (dirs) => mergeWorktree(host, dirs, options, () => deactivate(options.name)),
        options.abortSignal,
      );
    },
    async discard(options) {
      checkName(options.name);
      const discarded = await locked(
        'discard',
        (dirs) => discardWorktree(host, dirs, options),
        options.abortSignal,
      );
      deactivate(options.name);
      return discarded;
    },
    async list(options = {}) {
      const dirs = await projectWorktreeDirs(host.home, host.workspace);
      return listWorktrees(dirs, active, options.abortSignal);
    },
    async doctor(options = {}) {
      return locked('doctor', (dirs) => doctorWorktrees(host, dirs, options), options.abortSignal);
    },
    activeName() {
      return active;
    },
  };
}
