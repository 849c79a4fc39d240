import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { acquireLock, type Lock } from '../core/lock.js';
import { SafeturnError } from '../errors/safeturn-error.js';
import { StoreError } from '../errors/store-error.js';

/** A lock file younger than this may still be being written by its (live) creator. */
const tornLockGraceMs = 1_000;

/**
 * Removes a lock file whose content is not a lock record (the owner was killed between creating
 * and writing it), once it is older than a short grace period. `acquireLock` alone would wait on
 * such a file until its timeout, as it cannot tell whose it is.
 *
 * @returns true when a torn lock file was removed.
 */
export async function removeTornLock(lockFile: string): Promise<boolean> {
  let content: string;
  let ageMs: number;
  try {
    content = await readFile(lockFile, 'utf8');
    ageMs = Date.now() - (await stat(lockFile)).mtimeMs;
  } catch {
    return false;
  }
  try {
    const owner = JSON.parse(content) as { pid?: unknown };
    if (typeof owner.pid === 'number') return false;
  } catch {
    // Not JSON: torn.
  }
  if (ageMs < tornLockGraceMs) return false;
  const aside = `${lockFile}.torn-${randomBytes(6).toString('hex')}`;
  try {
    await rename(lockFile, aside);
  } catch {
    return false;
  }
  await rm(aside, { force: true });
  return true;
}

/** Options of {@link withRepositoryLock}. */
export interface RepositoryLockOptions {
  lockFile: string;
  /** Give up after this many ms. */
  timeoutMs: number;
  purpose: string;
  abortSignal?: AbortSignal | undefined;
}

/**
 * Runs `action` while holding the repository's cross-process lock (see `acquireLock`: a lock of
 * a dead pid is taken over); a torn lock file is removed too.
 *
 * @throws StoreError `LOCK_TIMEOUT` when a live process holds the lock past `timeoutMs`.
 */
export async function withRepositoryLock<Result>(
  options: RepositoryLockOptions,
  action: () => Promise<Result>,
): Promise<Result> {
  const deadline = Date.now() + options.timeoutMs;
  let lock: Lock;
  for (;;) {
    await removeTornLock(options.lockFile);
    try {
      lock = await acquireLock(options.lockFile, {
        timeoutMs: Math.max(0, Math.min(tornLockGraceMs, deadline - Date.now())),
        purpose: options.purpose,
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      });
      break;
    } catch (error) {
      if (!(SafeturnError.isInstance(error) && error.code === 'LOCK_TIMEOUT')) throw error;
      if (Date.now() >= deadline) {
        throw new StoreError(
          'LOCK_TIMEOUT',
          `The shadow repository lock ${options.lockFile} was held by another process for more than ${options.timeoutMs} ms (${options.purpose}).`,
          { data: { ...error.data, file: options.lockFile, timeoutMs: options.timeoutMs }, cause: error },
        );
      }
    }
  }
  try {
    return await action();
  } finally {
    await lock.release();
  }
}
