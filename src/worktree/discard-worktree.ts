import { requireEntry } from './merge-worktree.js';
import { type ProjectWorktreeDirs, removeEntry } from './registry.js';
import { removeWorktree } from './remove-worktree.js';
import type { WorktreeDiscarded, WorktreeDiscardOptions, WorktreeHost } from './types.js';

/**
 * The discard step of the manager (the caller holds the registry lock). See `WorktreeManager.discard`.
 *
 * @throws WorktreeError `WORKTREE_NOT_FOUND`, `WORKTREE_BUSY`, `WORKTREE`.
 */
export async function discardWorktree(
  host: WorktreeHost,
  dirs: ProjectWorktreeDirs,
  options: WorktreeDiscardOptions,
): Promise<WorktreeDiscarded> {
  const entry = await requireEntry(host, dirs, options.name);
  const branchCommit = await removeWorktree({
    repoRoot: entry.repoRoot,
    path: entry.path,
    branch: entry.branch,
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  await removeEntry(dirs, entry.name);
  return { name: entry.name, branch: entry.branch, path: entry.path, branchCommit };
}
