import { createHash } from 'node:crypto';

/** Lower-case hex sha256 of `data` (64 chars). */
export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
