import type { Stats } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { readDiskEntry } from './file-entry.js';
import { runGit, safeturnIdentity, splitNul } from './git.js';
import { type ProjectWorktreeDirs, storeBaseContent } from './registry.js';
import { joinRepoPath } from './repo-paths.js';

/** Options of {@link carryDirtyTree}. */
export interface CarryDirtyTreeOptions {
  repoRoot: string;
  worktreePath: string;
  /** Whether an ignored repository-relative path is to be carried anyway. */
  isIncluded: (repoRelative: string) => boolean;
  /** Whether any include pattern exists (listing ignored files walks ignored folders, so skip it when not). */
  hasIncludes: boolean;
  dirs: ProjectWorktreeDirs;
  name: string;
  abortSignal?: AbortSignal;
}

/** What {@link carryDirtyTree} carried. */
export interface CarriedState {
  /** Repository-relative paths carried (tracked edits and deletions, untracked, included ignored files). */
  carried: string[];
  /** Included ignored files: path -> stored base content hash and executable bit. */
  included: Record<string, { sha256: string; executable: boolean }>;
  /** The carried paths git tracks or may track (not ignored): the ones to commit. */
  staged: string[];
}

async function copyPath(source: string, target: string): Promise<boolean> {
  let stats: Stats;
  try {
    stats = await lstat(source);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    await rm(target, { force: true });
    return true;
  }
  if (!stats.isFile() && !stats.isSymbolicLink()) return false;
  await mkdir(path.dirname(target), { recursive: true });
  await rm(target, { force: true, recursive: true });
  if (stats.isSymbolicLink()) {
    await symlink(await readlink(source, { encoding: 'buffer' }), target);
  } else {
    await copyFile(source, target);
    await chmod(target, stats.mode & 0o7777);
  }
  return true;
}

/**
 * Copies the user's uncommitted state into a fresh worktree: tracked edits and deletions
 * (`git diff HEAD`), untracked non-ignored files, and ignored files the include patterns match
 * (their base bytes stored in the registry, since they stay out of git).
 *
 * @returns the carried paths and the included files' base records.
 */
export async function carryDirtyTree(options: CarryDirtyTreeOptions): Promise<CarriedState> {
  const git = (args: string[]) =>
    runGit({
      cwd: options.repoRoot,
      args,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  const tracked = splitNul(
    (await git(['diff', '--name-only', '-z', '--no-renames', '--ignore-submodules=all', 'HEAD', '--']))
      .stdout,
  );
  const untracked = splitNul((await git(['ls-files', '--others', '--exclude-standard', '-z'])).stdout);
  const ignored = options.hasIncludes
    ? splitNul((await git(['ls-files', '--others', '--ignored', '--exclude-standard', '-z'])).stdout).filter(
        options.isIncluded,
      )
    : [];
  const carried: string[] = [];
  for (const relative of [...new Set([...tracked, ...untracked])]
    .filter((entry) => !entry.endsWith('/'))
    .sort()) {
    if (
      await copyPath(joinRepoPath(options.repoRoot, relative), joinRepoPath(options.worktreePath, relative))
    ) {
      carried.push(relative);
    }
  }
  const staged = [...carried];
  const included: CarriedState['included'] = {};
  for (const relative of ignored.filter((entry) => !entry.endsWith('/')).sort()) {
    const entry = await readDiskEntry(joinRepoPath(options.repoRoot, relative));
    if (entry.kind !== 'file') continue;
    await copyPath(joinRepoPath(options.repoRoot, relative), joinRepoPath(options.worktreePath, relative));
    included[relative] = {
      sha256: await storeBaseContent(options.dirs, options.name, entry.bytes),
      executable: entry.executable,
    };
    carried.push(relative);
  }
  return { carried, included, staged };
}

/** Options of {@link commitCarriedState}. */
export interface CommitCarriedStateOptions {
  worktreePath: string;
  branch: string;
  baseCommit: string;
  /** Repository-relative paths to stage (the carried, non-ignored ones); nothing else is looked at. */
  paths: string[];
  message: string;
  abortSignal?: AbortSignal;
}

/**
 * Records the worktree's state at creation as one commit on its branch (plumbing: no hooks, no
 * signing, a fixed safeturn identity), so the agent's own changes show as `git diff` there and
 * merge has an exact base.
 *
 * @returns the commit (the base commit itself when nothing was carried).
 */
export async function commitCarriedState(options: CommitCarriedStateOptions): Promise<string> {
  if (options.paths.length === 0) return options.baseCommit;
  const git = (args: string[], env?: Record<string, string>, input?: string) =>
    runGit({
      cwd: options.worktreePath,
      args,
      ...(env ? { env } : {}),
      ...(input === undefined ? {} : { input }),
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  // Only the carried paths: `add --all .` would re-hash every racily-clean file of the fresh checkout.
  await git(
    ['add', '--all', '--pathspec-from-file=-', '--pathspec-file-nul'],
    undefined,
    `${options.paths.join('\0')}\0`,
  );
  const tree = (await git(['write-tree'])).stdout.trim();
  const baseTree = (await git(['rev-parse', `${options.baseCommit}^{tree}`])).stdout.trim();
  if (tree === baseTree) return options.baseCommit;
  const commit = (
    await git(['commit-tree', tree, '-p', options.baseCommit, '-m', options.message], safeturnIdentity)
  ).stdout.trim();
  await git([
    'update-ref',
    '-m',
    'safeturn: state at worktree creation',
    `refs/heads/${options.branch}`,
    commit,
    options.baseCommit,
  ]);
  return commit;
}
