import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../core/hash.js';
import { StoreError } from '../errors/store-error.js';

/** Existing blobs up to this size are re-hashed before being trusted. */
const VERIFY_LIMIT_BYTES = 1024 * 1024;

/**
 * Content-addressed store of pre-images: `<dir>/<aa>/<sha256>`, raw bytes, written once per
 * distinct content (temp file, then rename, so a reader never sees half a blob). Safe to share
 * between sessions and processes: writes of the same content are idempotent.
 */
export class BlobStore {
  readonly dir: string;

  /** @param dir - absolute path of the `blobs/` directory (created on first write). */
  constructor(dir: string) {
    this.dir = dir;
  }

  /** Where the blob with this hash lives. */
  pathOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /**
   * Stores bytes whose sha256 is `hash` (computed by the caller). An existing blob that checks
   * out is only freshened (its mtime bumped, so `gc` sees it as recently used); a damaged one is
   * written again.
   *
   * @throws StoreError `STORE_IO` when the store cannot be written.
   */
  async put(hash: string, content: Uint8Array): Promise<void> {
    const file = this.pathOf(hash);
    if (await this.#intact(file, hash, content.byteLength)) {
      const now = new Date();
      await utimes(file, now, now).catch(() => undefined);
      return;
    }
    try {
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temp, content);
      await rename(temp, file);
    } catch (error) {
      throw new StoreError(
        'STORE_IO',
        `Could not write blob ${hash} to ${this.dir}: ${(error as Error).message}`,
        {
          cause: error,
          data: { hash },
        },
      );
    }
  }

  /**
   * An existing blob is trusted when its size matches, and, up to 1 MiB, its hash too; anything
   * else (truncated, damaged by hand) is written again from the fresh bytes.
   */
  async #intact(file: string, hash: string, size: number): Promise<boolean> {
    try {
      const stats = await stat(file);
      if (stats.size !== size) return false;
      if (size > VERIFY_LIMIT_BYTES) return true;
      return sha256(await readFile(file)) === hash;
    } catch {
      return false;
    }
  }

  /** True when the blob exists. */
  async has(hash: string): Promise<boolean> {
    try {
      await stat(this.pathOf(hash));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Reads a blob and verifies its hash.
   *
   * @throws StoreError `STORE_CORRUPT` when the blob is missing or its bytes do not match the hash.
   */
  async get(hash: string): Promise<Uint8Array> {
    let content: Uint8Array;
    try {
      content = await readFile(this.pathOf(hash));
    } catch (error) {
      throw new StoreError('STORE_CORRUPT', `Blob ${hash} is missing from the store ${this.dir}.`, {
        cause: error,
        data: { hash },
      });
    }
    if (sha256(content) !== hash) {
      throw new StoreError('STORE_CORRUPT', `Blob ${hash} in ${this.dir} does not match its hash.`, {
        data: { hash },
      });
    }
    return content;
  }

  /** Deletes a blob (used by gc). */
  async remove(hash: string): Promise<void> {
    await rm(this.pathOf(hash), { force: true });
  }
}
