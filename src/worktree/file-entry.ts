import type { Stats } from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';

/**
 * The state of one path on one side of a merge: a regular file (bytes, executable bit, and for
 * files on disk their permission bits), a symlink (raw target bytes), absent, or something we
 * never merge (a directory, a submodule, a socket).
 */
export type FileEntry =
  | { kind: 'file'; bytes: Buffer; executable: boolean; permissions?: number }
  | { kind: 'symlink'; target: Buffer }
  | { kind: 'absent' }
  | { kind: 'other'; description: string };

/** The absent entry. */
export const absent: FileEntry = { kind: 'absent' };

/**
 * Reads what is at `absolutePath` without following a final symlink.
 *
 * @returns the entry; `absent` when nothing is there (also when a parent is not a directory).
 */
export async function readDiskEntry(absolutePath: string): Promise<FileEntry> {
  let stats: Stats;
  try {
    stats = await lstat(absolutePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return absent;
    throw error;
  }
  if (stats.isSymbolicLink())
    return { kind: 'symlink', target: await readlink(absolutePath, { encoding: 'buffer' }) };
  if (stats.isFile()) {
    return {
      kind: 'file',
      bytes: await readFile(absolutePath),
      executable: (stats.mode & 0o111) !== 0,
      permissions: stats.mode & 0o7777,
    };
  }
  return { kind: 'other', description: stats.isDirectory() ? 'a directory' : 'not a regular file' };
}

/**
 * Builds an entry from a git tree mode and the object's bytes.
 *
 * @param mode - the six-digit octal mode of `git ls-tree` (`100644`, `100755`, `120000`, `160000`).
 */
export function gitEntry(mode: string, bytes: Buffer | undefined): FileEntry {
  if ((mode === '100644' || mode === '100755') && bytes !== undefined) {
    return { kind: 'file', bytes, executable: mode === '100755' };
  }
  if (mode === '120000' && bytes !== undefined) return { kind: 'symlink', target: bytes };
  return { kind: 'other', description: mode === '160000' ? 'a submodule' : `git mode ${mode}` };
}

/** True when both entries hold the same thing (same kind, bytes and executable bit; permissions aside). */
export function sameEntry(left: FileEntry, right: FileEntry): boolean {
  if (left.kind === 'file' && right.kind === 'file') {
    return left.executable === right.executable && left.bytes.equals(right.bytes);
  }
  if (left.kind === 'symlink' && right.kind === 'symlink') return left.target.equals(right.target);
  if (left.kind === 'other' || right.kind === 'other') return false;
  return left.kind === right.kind;
}

/** git's heuristic: a NUL byte in the first 8000 bytes means binary. */
export function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}
