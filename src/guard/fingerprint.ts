import { readFile, stat } from 'node:fs/promises';
import { IN_MEMORY_HASH_LIMIT, sha256, sha256File } from '../core/hash.js';

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
    const size = Number(stats.size);
    const hash = content
      ? sha256(content)
      : size > IN_MEMORY_HASH_LIMIT
        ? await sha256File(absolutePath)
        : sha256(await readFile(absolutePath));
    return { mtimeNs: stats.mtimeNs, size, sha256: hash };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
