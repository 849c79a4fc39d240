import { readFile, stat } from 'node:fs/promises';
import { sha256 } from '../core/hash.js';

/**
 * What the agent last saw of a file: modification time in nanoseconds, size in bytes and
 * the sha256 of its content. The content hash is decisive; mtime and size are the fast path.
 */
export interface Fingerprint {
  mtimeNs: bigint;
  size: number;
  sha256: string;
}

/**
 * Fingerprints a file from bytes already read (so the hash is of exactly what the agent saw)
 * and a fresh `stat`.
 *
 * @param absolutePath - the file.
 * @param content - its bytes; read from disk when omitted.
 * @returns the fingerprint, or `undefined` when the file does not exist or is not a regular file.
 */
export async function takeFingerprint(
  absolutePath: string,
  content?: Uint8Array,
): Promise<Fingerprint | undefined> {
  try {
    const stats = await stat(absolutePath, { bigint: true });
    if (!stats.isFile()) return undefined;
    const bytes = content ?? (await readFile(absolutePath));
    return { mtimeNs: stats.mtimeNs, size: Number(stats.size), sha256: sha256(bytes) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
