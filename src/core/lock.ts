import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError } from '../errors/store-error.js';

/** A held lock; `release()` removes it (idempotent). */
export interface Lock {
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@link acquireLock}. */
export interface AcquireLockOptions {
  /** Give up after this many milliseconds. @default 30_000 */
  timeoutMs?: number;
  /** Why the lock is taken, written into the lock file for humans. */
  purpose?: string;
  abortSignal?: AbortSignal;
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
  purpose: string;
  at: string;
}

/** An unparsable lock file older than this is taken over. */
const UNREADABLE_LOCK_STALE_MS = 2000;

async function olderThan(file: string, milliseconds: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(file)).mtimeMs > milliseconds;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(file, 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' ? owner : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes an exclusive lock file that survives process death: the file names its owner's pid and
 * host; a lock whose owner on this host is dead is taken over (the stale file is renamed away
 * first, so two waiters cannot both take it over).
 *
 * @param file - absolute path of the lock file (its directory must exist).
 * @returns a {@link Lock}; call `release()` (or use `await using`).
 * @throws StoreError `LOCK_TIMEOUT` when a live owner keeps it past `timeoutMs`.
 */
export async function acquireLock(file: string, options: AcquireLockOptions = {}): Promise<Lock> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const token = randomBytes(8).toString('hex');
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    token,
    purpose: options.purpose ?? 'safeturn',
    at: new Date().toISOString(),
  };
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    options.abortSignal?.throwIfAborted();
    try {
      await writeFile(file, JSON.stringify(owner), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = await readOwner(file);
    // An unreadable lock is one whose owner died between creating and writing it (or a torn
    // write): stale once it is older than any live writer would take.
    const stale =
      current === undefined
        ? await olderThan(file, UNREADABLE_LOCK_STALE_MS)
        : current.host === owner.host && !isAlive(current.pid);
    if (stale) {
      const aside = `${file}.stale-${token}`;
      try {
        await rename(file, aside);
        const moved = await readOwner(aside);
        await rm(aside, { force: true });
        // Someone else took the stale lock over between our read and rename: put theirs back is
        // impossible, so only proceed when we moved the very lock we judged stale.
        if (moved?.token !== current?.token && moved !== undefined) {
          await writeFile(file, JSON.stringify(moved), { flag: 'wx' }).catch(() => undefined);
        }
      } catch {
        // Another waiter moved it first; loop and try again.
      }
      continue;
    }
    if (Date.now() > deadline) {
      throw new StoreError(
        'LOCK_TIMEOUT',
        `Lock ${file} is held by pid ${current?.pid ?? '?'} (${current?.purpose ?? 'unknown'}) for more than ${timeoutMs} ms.`,
        {
          data: { file, owner: current },
        },
      );
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 100);
  }
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    const current = await readOwner(file);
    if (current?.token === token) await rm(file, { force: true });
  };
  return { release, [Symbol.asyncDispose]: release };
}
