import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** The git directories found under some roots, and the hook directories they use. */
export interface GitLocations {
  /** Every `.git` file found (worktrees, submodules): protected read-only themselves. */
  gitFiles: string[];
  /** Every git directory: `.git` directories and the targets of `.git` files (and their common dirs). */
  gitDirectories: string[];
  /** `core.hooksPath` directories configured in those repositories, resolved. */
  hooksPaths: string[];
}

async function readGitFileTarget(file: string): Promise<string | undefined> {
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(file, 'utf8'));
    if (match?.[1] === undefined) return undefined;
    return await realpath(path.resolve(path.dirname(file), match[1]));
  } catch {
    return undefined;
  }
}

async function readCommonDirectory(gitDirectory: string): Promise<string | undefined> {
  try {
    const content = (await readFile(path.join(gitDirectory, 'commondir'), 'utf8')).trim();
    return await realpath(path.resolve(gitDirectory, content));
  } catch {
    return undefined;
  }
}

/** `core.hooksPath` of a repository's config, resolved against the work tree (git's rule), if set. */
async function readHooksPath(
  gitDirectory: string,
  workTree: string,
  home: string,
): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(gitDirectory, 'config'), 'utf8');
  } catch {
    return undefined;
  }
  let inCore = false;
  let found: string | undefined;
  for (const line of text.split('\n')) {
    const section = /^\s*\[\s*([^\]\s"]+)/.exec(line);
    if (section) inCore = section[1]!.toLowerCase() === 'core';
    const entry = /^\s*hookspath\s*=\s*"?(.*?)"?\s*$/i.exec(line);
    if (inCore && entry?.[1]) found = entry[1];
  }
  if (found === undefined) return undefined;
  if (found.startsWith('~/')) return path.join(home, found.slice(2));
  return path.resolve(workTree, found);
}

/** What a `.git` entry is, following a symlink: a git directory, a gitdir file, or neither. */
async function gitEntryKind(entry: Dirent, full: string): Promise<'directory' | 'file' | undefined> {
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (!entry.isSymbolicLink()) return undefined;
  try {
    return (await stat(full)).isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}

function isBareRepository(entries: readonly Dirent[]): boolean {
  const has = (name: string, directory: boolean) =>
    entries.some((entry) => entry.name === name && (directory ? entry.isDirectory() : entry.isFile()));
  return has('HEAD', false) && has('objects', true) && has('refs', true);
}

async function subdirectories(directory: string): Promise<string[]> {
  try {
    const entries = await readdir(directory, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(directory, entry.name));
  } catch {
    return [];
  }
}

/** `worktrees/*` and `modules/**` git directories (those holding a HEAD) directly inside a git directory. */
async function innerGitDirectories(gitDirectory: string): Promise<string[]> {
  const found = await subdirectories(path.join(gitDirectory, 'worktrees'));
  const pending = await subdirectories(path.join(gitDirectory, 'modules'));
  while (pending.length > 0) {
    const candidate = pending.pop()!;
    const names = await readdir(candidate).catch(() => [] as string[]);
    // A submodule named a/b lives in modules/a/b: descend until a directory with HEAD is found.
    if (names.includes('HEAD')) found.push(candidate);
    else pending.push(...(await subdirectories(candidate)));
  }
  return found;
}

/**
 * Walks `roots` (never following symlinks, never descending into a `.git`) and lists every
 * repository inside them at any depth: `.git` directories (a `.git` symlink at its target), bare
 * repositories (HEAD, objects/, refs/), `.git` files with their gitdir
 * targets and common dirs, the linked-worktree and submodule git directories kept inside them,
 * and configured `core.hooksPath` directories.
 *
 * @param roots - absolute directories to walk.
 * @param home - HOME, for a `~/` hooksPath.
 */
export async function findGitLocations(roots: readonly string[], home: string): Promise<GitLocations> {
  const gitFiles: string[] = [];
  const gitDirectories = new Set<string>();
  const hooksPaths = new Set<string>();
  const workTrees = new Map<string, string>();
  // A root that is itself a git directory (a main repository's .git given as a writable root).
  for (const root of roots) {
    if (path.basename(root) === '.git') {
      gitDirectories.add(root);
      workTrees.set(root, path.dirname(root));
    }
  }
  const scanDirectory = async (directory: string, entries: Dirent[]): Promise<void> => {
    // A bare repository (HEAD, objects/, refs/) anywhere in the tree: a git directory of its own.
    if (directory !== '/' && isBareRepository(entries)) {
      gitDirectories.add(directory);
      return;
    }
    for (const entry of entries) {
      const full = path.join(directory, entry.name);
      if (entry.name === '.git') {
        // A .git symlink is protected at its target (the link itself lives in the writable root).
        const kind = await gitEntryKind(entry, full);
        if (kind === 'directory') {
          const real = entry.isSymbolicLink() ? await realpath(full) : full;
          gitDirectories.add(real);
          workTrees.set(real, directory);
        } else if (kind === 'file') {
          if (!entry.isSymbolicLink()) gitFiles.push(full);
          const target = await readGitFileTarget(full);
          if (target !== undefined) {
            gitDirectories.add(target);
            workTrees.set(target, directory);
            const common = await readCommonDirectory(target);
            if (common !== undefined) gitDirectories.add(common);
          }
        }
        continue;
      }
      if (entry.isDirectory()) pending.push(full);
    }
  };
  const pending = [...roots];
  const visited = new Set<string>();
  while (pending.length > 0) {
    // Read up to 32 directories at once; the walk is I/O bound.
    const batch = pending.splice(-32).filter((directory) => !visited.has(directory));
    for (const directory of batch) visited.add(directory);
    const listings = await Promise.all(
      batch.map((directory) => readdir(directory, { withFileTypes: true }).catch(() => undefined)),
    );
    for (const [index, directory] of batch.entries()) {
      const entries = listings[index];
      if (entries !== undefined) await scanDirectory(directory, entries);
    }
  }
  // Git directories kept inside others: linked worktrees (worktrees/*) and submodules (modules/**).
  const queue = [...gitDirectories];
  while (queue.length > 0) {
    for (const inner of await innerGitDirectories(queue.pop()!)) {
      if (gitDirectories.has(inner)) continue;
      gitDirectories.add(inner);
      queue.push(inner);
    }
  }
  for (const gitDirectory of gitDirectories) {
    const hooksPath = await readHooksPath(
      gitDirectory,
      workTrees.get(gitDirectory) ?? path.dirname(gitDirectory),
      home,
    );
    if (hooksPath !== undefined) hooksPaths.add(hooksPath);
  }
  return {
    gitFiles: gitFiles.sort(),
    gitDirectories: [...gitDirectories].sort(),
    hooksPaths: [...hooksPaths].sort(),
  };
}

/**
 * Lists the hook files (not `*.sample`, which git never runs) in every hooks directory of `locations`.
 *
 * @returns absolute paths of hook files, sorted.
 */
export async function listHookFiles(locations: GitLocations): Promise<string[]> {
  const directories = new Set([
    ...locations.gitDirectories.map((directory) => path.join(directory, 'hooks')),
    ...locations.hooksPaths,
  ]);
  const files: string[] = [];
  for (const directory of directories) {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.endsWith('.sample') || entry.isDirectory()) continue;
      files.push(path.join(directory, entry.name));
    }
  }
  return files.sort();
}
