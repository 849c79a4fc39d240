import { absent, type FileEntry, gitEntry, readDiskEntry, sameEntry } from './file-entry.js';
import { readBlobs, runGit, splitNul } from './git.js';
import { includeMatcher } from './include-config.js';
import { type ProjectWorktreeDirs, type RegistryEntry, readBaseContent } from './registry.js';
import { joinRepoPath } from './repo-paths.js';

/** A path the worktree changed since creation: its base state and its state in the worktree now. */
export interface WorktreeChange {
  /** Repository-relative POSIX path. */
  path: string;
  base: FileEntry;
  theirs: FileEntry;
}

async function baseEntries(
  worktreePath: string,
  commit: string,
  paths: string[],
  abortSignal: AbortSignal | undefined,
): Promise<Map<string, FileEntry>> {
  const modes = new Map<string, { mode: string; objectId: string }>();
  for (let start = 0; start < paths.length; start += 500) {
    const chunk = paths.slice(start, start + 500);
    const { stdout } = await runGit({
      cwd: worktreePath,
      args: ['ls-tree', '-r', '-z', '--full-tree', commit, '--', ...chunk],
      ...(abortSignal ? { abortSignal } : {}),
    });
    for (const record of splitNul(stdout)) {
      const tab = record.indexOf('\t');
      const [mode, , objectId] = record.slice(0, tab).split(' ');
      if (mode && objectId) modes.set(record.slice(tab + 1), { mode, objectId });
    }
  }
  const blobIds = [...modes.values()]
    .filter((value) => value.mode !== '160000')
    .map((value) => value.objectId);
  const blobs = await readBlobs(worktreePath, blobIds, abortSignal);
  const entries = new Map<string, FileEntry>();
  for (const [file, { mode, objectId }] of modes) entries.set(file, gitEntry(mode, blobs.get(objectId)));
  return entries;
}

/**
 * Lists what a worktree changed since creation: tracked paths that differ from the creation
 * commit (`git diff <commit>` against the work tree, so the agent's own commits count too),
 * new untracked files, and included ignored files; each compared byte for byte with its base.
 *
 * @returns the changes, sorted by path.
 * @throws WorktreeError `WORKTREE` when git fails.
 */
export async function worktreeChanges(
  entry: RegistryEntry,
  dirs: ProjectWorktreeDirs,
  abortSignal?: AbortSignal,
): Promise<WorktreeChange[]> {
  const commit = entry.creationCommit ?? entry.baseCommit;
  const git = async (args: string[]) =>
    splitNul((await runGit({ cwd: entry.path, args, ...(abortSignal ? { abortSignal } : {}) })).stdout);
  const tracked = await git([
    'diff',
    '--name-only',
    '-z',
    '--no-renames',
    '--no-ext-diff',
    '--ignore-submodules=all',
    commit,
    '--',
  ]);
  const untracked = await git(['ls-files', '--others', '--exclude-standard', '-z']);
  const gitPaths = [...new Set([...tracked, ...untracked])].filter((file) => !file.endsWith('/'));
  const gitPathSet = new Set(gitPaths);
  const isIncluded = includeMatcher(entry.includePatterns, entry.prefix);
  const ignoredNow =
    entry.includePatterns.length > 0
      ? (await git(['ls-files', '--others', '--ignored', '--exclude-standard', '-z'])).filter(isIncluded)
      : [];
  const includedPaths = [...new Set([...Object.keys(entry.included), ...ignoredNow])].filter(
    (file) => !gitPathSet.has(file) && !file.endsWith('/'),
  );
  const bases = await baseEntries(entry.path, commit, gitPaths, abortSignal);
  const changes: WorktreeChange[] = [];
  for (const file of gitPaths) {
    const base = bases.get(file) ?? absent;
    const theirs = await readDiskEntry(joinRepoPath(entry.path, file));
    if (!sameEntry(base, theirs)) changes.push({ path: file, base, theirs });
  }
  for (const file of includedPaths) {
    const record = entry.included[file];
    const base: FileEntry = record
      ? {
          kind: 'file',
          bytes: await readBaseContent(dirs, entry.name, record.sha256),
          executable: record.executable,
        }
      : absent;
    const theirs = await readDiskEntry(joinRepoPath(entry.path, file));
    if (!sameEntry(base, theirs)) changes.push({ path: file, base, theirs });
  }
  return changes.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}
