import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** File mode of a new file, e.g. `0o644`. @default 0o666 minus umask */
  mode?: number;
  /** fsync the temp file before the rename. @default false */
  fsync?: boolean;
}

/**
 * Writes `data` to `file` so that readers see either the old or the new content, never half of it:
 * a temp file beside the target, then `rename(2)`. If the target is a symlink, the link itself
 * is replaced (the file it points to is not written).
 *
 * @param file - absolute path of the file to write.
 * @param data - the bytes (or UTF-8 text) to write.
 * @throws the underlying `fs` error (e.g. `ENOENT` when the directory is missing); the temp file is removed.
 */
export async function writeFileAtomic(
  file: string,
  data: Uint8Array | string,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file).slice(0, 40)}.${randomBytes(6).toString('hex')}.safeturn-tmp`,
  );
  try {
    await writeFile(temp, data, { mode: options.mode ?? 0o666, flush: options.fsync ?? false });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
