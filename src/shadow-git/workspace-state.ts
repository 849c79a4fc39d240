import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Why a changed path was not stored in a commit (rule 3: nothing is silently left out). */
export type SkipReason = 'too-large' | 'not-a-regular-file' | 'unreadable' | 'git-metadata';

/** The state of one workspace path as read for a commit. */
export type PathState =
  | { kind: 'file'; bytes: Uint8Array; executable: boolean }
  | { kind: 'symlink'; target: Uint8Array }
  | { kind: 'absent' }
  | { kind: 'directory' }
  | { kind: 'skipped'; reason: SkipReason };

// Names git's fsck refuses in a tree (`.git` and its NTFS/HFS aliases) and special files that must
// not be symlinks; storing them would make `git fsck --strict` fail on the shadow repository.
const ignorableHfsCharacters = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
const specialDotFiles = new Set(['.gitmodules', '.gitattributes', '.gitignore', '.mailmap']);

/** True when a path has a segment git treats as its own metadata directory. */
export function isGitMetadataPath(relative: string): boolean {
  return relative.split('/').some((segment) => {
    const folded = segment
      .toLowerCase()
      .replace(ignorableHfsCharacters, '')
      .replace(/[. ]+$/, '');
    return folded === '.git' || folded === 'git~1';
  });
}

/** Options of {@link readPathState}. */
export interface ReadPathStateOptions {
  /** Absolute, realpath'd workspace. */
  workspace: string;
  /** Workspace-relative POSIX path (already in normal form). */
  relative: string;
  /** Files larger than this are skipped as `too-large`, in bytes. */
  maxFileBytes: number;
  /** Per-snapshot memo: parent directory -> whether it is a real directory inside the workspace. */
  parents?: Map<string, Promise<boolean>>;
}

async function isRealDirectory(parent: string): Promise<boolean> {
  try {
    return (await realpath(parent)) === parent;
  } catch {
    return false;
  }
}

/**
 * Reads one path the way git would track it: a regular file (bytes + executable bit), a symlink
 * (its target, never what it points to), or absent. A path below a symlinked or missing parent
 * is absent (git cannot track it there), so nothing outside the workspace is ever read.
 *
 * @returns the {@link PathState}; never throws for a missing or unreadable file.
 */
export async function readPathState(options: ReadPathStateOptions): Promise<PathState> {
  const { workspace, relative } = options;
  if (isGitMetadataPath(relative)) return { kind: 'skipped', reason: 'git-metadata' };
  const absolute = path.join(workspace, ...relative.split('/'));
  const parent = path.dirname(absolute);
  let parentCheck = options.parents?.get(parent);
  if (parentCheck === undefined) {
    parentCheck = isRealDirectory(parent);
    options.parents?.set(parent, parentCheck);
  }
  if (!(await parentCheck)) return { kind: 'absent' };
  // O_NOFOLLOW: a path swapped for a symlink after the parent check is never followed out of the
  // workspace; O_NONBLOCK: a fifo does not block the open.
  let handle: FileHandle;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    if (code === 'ELOOP') return readSymlink(absolute);
    return { kind: 'skipped', reason: code === 'ENXIO' ? 'not-a-regular-file' : 'unreadable' };
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { kind: 'directory' };
    if (!stats.isFile()) return { kind: 'skipped', reason: 'not-a-regular-file' };
    if (stats.size > options.maxFileBytes) return { kind: 'skipped', reason: 'too-large' };
    const bytes = await handle.readFile();
    if (bytes.length > options.maxFileBytes) return { kind: 'skipped', reason: 'too-large' };
    return { kind: 'file', bytes, executable: (stats.mode & 0o111) !== 0 };
  } catch {
    return { kind: 'skipped', reason: 'unreadable' };
  } finally {
    await handle.close();
  }
}

async function readSymlink(absolute: string): Promise<PathState> {
  try {
    if (!(await lstat(absolute)).isSymbolicLink()) return { kind: 'skipped', reason: 'unreadable' };
    if (specialDotFiles.has(path.basename(absolute))) return { kind: 'skipped', reason: 'git-metadata' };
    return { kind: 'symlink', target: await readlink(absolute, { encoding: 'buffer' }) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? { kind: 'absent' }
      : { kind: 'skipped', reason: 'unreadable' };
  }
}
