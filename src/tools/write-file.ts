import { chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.js';

/**
 * Writes a file the way the reference tools do: parent directories created, written atomically,
 * and an existing file's permission bits (the executable bit) kept.
 */
export async function writeToolFile(absolute: string, content: Uint8Array | string): Promise<void> {
  const existing = await stat(absolute).catch(() => undefined);
  await mkdir(path.dirname(absolute), { recursive: true });
  const mode = existing?.isFile() ? existing.mode & 0o7777 : undefined;
  await writeFileAtomic(absolute, content, mode === undefined ? {} : { mode });
  if (mode !== undefined) await chmod(absolute, mode);
}
