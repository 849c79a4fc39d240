import { access } from 'node:fs/promises';
import { isOwnerAlive } from './owner.js';
import { type ProjectWorktreeDirs, readAllEntries } from './registry.js';
import { toWorkspaceRelative } from './repo-paths.js';
import type { WorktreeInfo } from './types.js';
import { worktreeChanges } from './worktree-changes.js';

/**
 * Lists every registered worktree of the workspace, with its changed files (computed from disk).
 *
 * @param activeName - the name of the session's active worktree, if any.
 * @returns one row per worktree, oldest first. A worktree whose changes cannot be computed has `problem` set.
 */
export async function listWorktrees(
  dirs: ProjectWorktreeDirs,
  activeName: string | undefined,
  abortSignal?: AbortSignal,
): Promise<WorktreeInfo[]> {
  const { entries } = await readAllEntries(dirs);
  const rows: WorktreeInfo[] = [];
  for (const entry of entries) {
    const exists = await access(entry.path).then(
      () => true,
      () => false,
    );
    let changedFiles: string[] = [];
    let problem: string | undefined;
    if (exists && entry.state !== 'creating') {
      try {
        changedFiles = (await worktreeChanges(entry, dirs, abortSignal)).map((change) =>
          toWorkspaceRelative(change.path, entry.prefix),
        );
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
    }
    rows.push({
      name: entry.name,
      branch: entry.branch,
      path: entry.path,
      base: entry.baseCommit,
      createdAt: entry.createdAt,
      state: entry.state,
      sessionId: entry.sessionId,
      ownerPid: entry.owner.pid,
      ownerAlive: isOwnerAlive(entry.owner),
      active: entry.name === activeName,
      exists,
      changedFiles,
      ...(problem ? { problem } : {}),
    });
  }
  return rows;
}
