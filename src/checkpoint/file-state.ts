import { lstat, readFile, readlink } from 'node:fs/promises';
import { z } from 'zod';
import { sha256, sha256File } from '../core/hash.js';

/** Why a path's content could not be stored. */
export type SkipReason = 'too-large' | 'unreadable' | 'not-a-regular-file' | 'invalid-name';

/**
 * The state of one path, as recorded in the journal: absent (a tombstone), a regular file
 * (content hash, size in bytes, permission bits), a symlink (its target string, never followed),
 * or skipped (could not be stored, with the reason).
 */
export const fileStateSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('absent') }),
  z.object({
    kind: z.literal('file'),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number().int().nonnegative(),
    mode: z.number().int().min(0).max(0o7777),
  }),
  z.object({ kind: z.literal('symlink'), target: z.string() }),
  z.object({
    kind: z.literal('skipped'),
    reason: z.enum(['too-large', 'unreadable', 'not-a-regular-file', 'invalid-name']),
    size: z.number().int().nonnegative().optional(),
  }),
]);

/** See {@link fileStateSchema}. */
export type FileState = z.infer<typeof fileStateSchema>;

/** A state read from disk, with the bytes of a regular file when they were read. */
export interface ObservedState {
  state: FileState;
  content?: Uint8Array;
}

/** Options of {@link observePath}. */
export interface ObservePathOptions {
  /** Files larger than this many bytes are `skipped: too-large` (or hashed only, with `hashLarge`). */
  sizeCapBytes: number;
  /** Stream-hash files over the cap into a `file` state without returning their bytes. @default false */
  hashLarge?: boolean;
}

/**
 * Reads the state of a path without following a final symlink.
 *
 * @returns the state, and for a regular file within the size cap its bytes.
 * @throws only on unexpected I/O errors; missing, unreadable or oversized paths are states.
 */
export async function observePath(absolutePath: string, options: ObservePathOptions): Promise<ObservedState> {
  let stats: import('node:fs').Stats;
  try {
    stats = await lstat(absolutePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: { kind: 'absent' } };
    if (code === 'EACCES' || code === 'EPERM') return { state: { kind: 'skipped', reason: 'unreadable' } };
    throw error;
  }
  if (stats.isSymbolicLink()) return { state: { kind: 'symlink', target: await readlink(absolutePath) } };
  if (!stats.isFile()) return { state: { kind: 'skipped', reason: 'not-a-regular-file' } };
  if (stats.size > options.sizeCapBytes) {
    if (!options.hashLarge) return { state: { kind: 'skipped', reason: 'too-large', size: stats.size } };
    // Too large to store, but its identity is needed (conflict checks, post states): stream it.
    try {
      return {
        state: {
          kind: 'file',
          sha256: await sha256File(absolutePath),
          size: stats.size,
          mode: stats.mode & 0o7777,
        },
      };
    } catch {
      return { state: { kind: 'skipped', reason: 'unreadable', size: stats.size } };
    }
  }
  let content: Uint8Array;
  try {
    content = await readFile(absolutePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EISDIR') {
      return { state: { kind: 'skipped', reason: 'unreadable', size: stats.size } };
    }
    if (code === 'ENOENT') return { state: { kind: 'absent' } };
    throw error;
  }
  return {
    state: { kind: 'file', sha256: sha256(content), size: content.byteLength, mode: stats.mode & 0o7777 },
    content,
  };
}

/**
 * True when two states are the same for restore purposes: same kind, and for files the same
 * bytes and the same executable bits; for symlinks the same target.
 */
export function sameState(a: FileState, b: FileState): boolean {
  switch (a.kind) {
    case 'absent':
      return b.kind === 'absent';
    case 'file':
      return b.kind === 'file' && a.sha256 === b.sha256 && (a.mode & 0o111) === (b.mode & 0o111);
    case 'symlink':
      return b.kind === 'symlink' && a.target === b.target;
    case 'skipped':
      return false;
  }
}
