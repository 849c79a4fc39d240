import { rm } from 'node:fs/promises';
import { runGit } from './git.js';
import { branchCommit, listGitWorktrees } from './repository.js';
import { WorktreeError } from './worktree-error.js';

/** Options of {@link removeWorktree}. */
export interface RemoveWorktreeOptions {
  repoRoot: string;
  path: string;
  /** The branch to force-delete; `undefined` keeps branches alone. */
  branch: string | undefined;
  abortSignal?: AbortSignal;
}

/**
 * Unlocks and removes a worktree, deletes its folder, prunes git's record of it and
 * force-deletes its branch (merged changes are files, so git never sees the branch as merged),
 * then checks that none of the three is left.
 *
 * @returns the branch's last commit before deletion, if it existed.
 * @throws WorktreeError `WORKTREE` when the folder, the git entry or the branch is still there afterwards.
 */
export async function removeWorktree(options: RemoveWorktreeOptions): Promise<string | undefined> {
  const signal = options.abortSignal ? { abortSignal: options.abortSignal } : {};
  const git = (args: string[]) => runGit({ cwd: options.repoRoot, args, allowFailure: true, ...signal });
  const commit = options.branch
    ? await branchCommit(options.repoRoot, options.branch, options.abortSignal)
    : undefined;
  await git(['worktree', 'unlock', options.path]);
  await git(['worktree', 'remove', '--force', '--force', options.path]);
  await rm(options.path, { recursive: true, force: true });
  await git(['worktree', 'prune']);
  if (commit !== undefined && options.branch) await git(['branch', '-D', options.branch]);
  const leftEntry = (await listGitWorktrees(options.repoRoot, options.abortSignal)).some(
    (record) => record.path === options.path,
  );
  const leftBranch = options.branch
    ? await branchCommit(options.repoRoot, options.branch, options.abortSignal)
    : undefined;
  if (leftEntry || leftBranch !== undefined) {
    throw new WorktreeError(
      'WORKTREE',
      `Could not fully remove worktree ${options.path}: ${leftEntry ? 'git still lists it' : `branch ${options.branch} is still there`}.`,
      {
        data: { path: options.path, branch: options.branch },
      },
    );
  }
  return commit;
}
