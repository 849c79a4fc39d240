import { realpath } from 'node:fs/promises';
import { runGit } from './git.js';
import { WorktreeError } from './worktree-error.js';

/** The git repository a workspace belongs to. */
export interface Repository {
  /** realpath'd top-level directory. */
  root: string;
  /** The workspace's path inside it: POSIX, `''` at the top, else ending in `/`. */
  prefix: string;
}

/**
 * Finds the repository of `workspace` with `git rev-parse`.
 *
 * @throws WorktreeError `WORKTREE_NEEDS_GIT` when the workspace is not inside a git work tree.
 */
export async function locateRepository(workspace: string, abortSignal?: AbortSignal): Promise<Repository> {
  const result = await runGit({
    cwd: workspace,
    args: ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--show-prefix'],
    allowFailure: true,
    ...(abortSignal ? { abortSignal } : {}),
  });
  const [inside, top, prefix] = result.stdout.split('\n');
  if (result.exitCode !== 0 || inside !== 'true' || !top) {
    throw new WorktreeError(
      'WORKTREE_NEEDS_GIT',
      `Worktrees need git: ${workspace} is not inside a git repository. Run \`git init\` and commit once, or work without a worktree (checkpoints still protect every turn).`,
      { data: { workspace, stderr: result.stderr } },
    );
  }
  return { root: await realpath(top), prefix: prefix ?? '' };
}

/**
 * Resolves a commit-ish to a full commit id.
 *
 * @returns the id, or `undefined` when it names no commit.
 */
export async function resolveCommit(
  cwd: string,
  commitish: string,
  abortSignal?: AbortSignal,
): Promise<string | undefined> {
  const result = await runGit({
    cwd,
    args: ['rev-parse', '--verify', '--quiet', '--end-of-options', `${commitish}^{commit}`],
    allowFailure: true,
    ...(abortSignal ? { abortSignal } : {}),
  });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/** One entry of `git worktree list --porcelain`. */
export interface GitWorktreeRecord {
  path: string;
  head: string | undefined;
  /** Short branch name (without `refs/heads/`). */
  branch: string | undefined;
  locked: string | undefined;
  prunable: boolean;
}

/** Lists the repository's worktrees as git knows them. */
export async function listGitWorktrees(cwd: string, abortSignal?: AbortSignal): Promise<GitWorktreeRecord[]> {
  const { stdout } = await runGit({
    cwd,
    args: ['worktree', 'list', '--porcelain', '-z'],
    ...(abortSignal ? { abortSignal } : {}),
  });
  const records: GitWorktreeRecord[] = [];
  let current: GitWorktreeRecord | undefined;
  for (const field of stdout.split('\0')) {
    if (field === '') {
      current = undefined;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      current = { path: value, head: undefined, branch: undefined, locked: undefined, prunable: false };
      records.push(current);
    } else if (current && key === 'HEAD') current.head = value;
    else if (current && key === 'branch') current.branch = value.replace(/^refs\/heads\//, '');
    else if (current && key === 'locked') current.locked = value;
    else if (current && key === 'prunable') current.prunable = true;
  }
  return records;
}

/** The commit a branch points to, or `undefined` when the branch does not exist. */
export async function branchCommit(
  cwd: string,
  branch: string,
  abortSignal?: AbortSignal,
): Promise<string | undefined> {
  return resolveCommit(cwd, `refs/heads/${branch}`, abortSignal);
}
