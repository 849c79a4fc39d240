import { hostname } from 'node:os';

/** The process that owns a worktree. */
export interface WorktreeOwner {
  pid: number;
  host: string;
}

/** The current process as an owner. */
export function currentOwner(): WorktreeOwner {
  return { pid: process.pid, host: hostname() };
}

/** The reason written into `git worktree lock`. */
export function lockReason(owner: WorktreeOwner): string {
  return `safeturn pid ${owner.pid}`;
}

/**
 * Whether the owner still runs. An owner on another host cannot be checked and counts as alive.
 */
export function isOwnerAlive(owner: WorktreeOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
