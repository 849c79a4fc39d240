import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Lower-case hex sha256 of `data` (64 chars). */
export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * sha256 of a file, streamed (constant memory, any size).
 * @throws the underlying fs error.
 */
export async function sha256File(absolutePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(absolutePath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Files up to this size are read into memory to hash; larger ones are streamed. */
export const IN_MEMORY_HASH_LIMIT = 16 * 1024 * 1024;
