import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, rename, rm, rmdir, stat, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.js';
import { mapConcurrent } from '../core/map-concurrent.js';
import { resolveRecordedPath } from '../core/paths.js';
import { SafeturnError } from '../errors/safeturn-error.js';
import type { BlobStore } from './blob-store.js';
import { type FileState, observePath, sameState } from './file-state.js';

/** One path to put back: the state to restore and the state we expect to find (rule 12). */
export interface RestoreItem {
  root: string;
  path: string;
  target: FileState;
  expected: FileState;
}

/** A path the restore could not handle, and why. */
export interface RestoreFailure {
  path: string;
  code: string;
  message: string;
}

/**
 * What a rewind or redo did (or, for a dry run, would do). Nothing is only logged: every path
 * that was not put back is in `skipped` or `failed` with its reason.
 */
export interface RestoreReport {
  /** Files and symlinks written (bytes or mode differed), root-relative. */
  restored: string[];
  /** Files deleted because a tombstone was recorded for them (rule 10). */
  deleted: string[];
  /** Directories created by the agent and removed because they were empty. */
  removedDirectories: string[];
  /** Paths already in the wanted state: not touched (rule 11). */
  unchanged: string[];
  /** Paths whose pre-image could not be stored (too large, unreadable): left alone (rule 3). */
  skipped: { path: string; reason: string }[];
  /** Paths that changed since the agent wrote them and were overwritten because of `force`. */
  overwritten: string[];
  /** Paths that could not be restored. */
  failed: RestoreFailure[];
  /** True when nothing was written (dry run). */
  dryRun: boolean;
}

/** The plan for one path that differs. */
export interface PlannedWrite {
  item: RestoreItem;
  absolute: string;
  current: FileState;
  content?: Uint8Array;
  conflict: boolean;
}

/** Result of {@link planRestore}. */
export interface RestorePlan {
  writes: PlannedWrite[];
  conflicts: string[];
  report: RestoreReport;
}

async function isDirectory(directory: string): Promise<boolean> {
  return stat(directory).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

/** How many paths a restore reads or writes at once. */
const RESTORE_CONCURRENCY = 16;

/** A report with nothing in it yet. @param dryRun - whether nothing will be written. */
export function emptyReport(dryRun: boolean): RestoreReport {
  return {
    restored: [],
    deleted: [],
    removedDirectories: [],
    unchanged: [],
    skipped: [],
    overwritten: [],
    failed: [],
    dryRun,
  };
}

function failure(pathName: string, error: unknown): RestoreFailure {
  const code = SafeturnError.isInstance(error)
    ? error.code
    : ((error as NodeJS.ErrnoException).code ?? 'RESTORE_FAILED');
  return { path: pathName, code, message: error instanceof Error ? error.message : String(error) };
}

/**
 * Compares each item with the disk and decides what must be written: nothing when the path is
 * already in the target state (rule 11), a conflict when it is neither the target nor the state
 * the agent left it in (rule 12). Never writes.
 */
export async function planRestore(
  items: RestoreItem[],
  options: {
    sizeCapBytes: number;
    dryRun: boolean;
    /** `root NUL path` of directories the restore removes first (created by the undone turns). */
    createdDirectories?: ReadonlySet<string>;
    /** Refuses a root or path the restore must not touch (throws a PathError). */
    checkPath?: PathCheck;
  },
): Promise<RestorePlan> {
  const report = emptyReport(options.dryRun);
  const writes: PlannedWrite[] = [];
  const conflicts: string[] = [];
  type Outcome =
    | { kind: 'skipped' | 'failed' | 'unchanged'; value: unknown }
    | { kind: 'write'; value: PlannedWrite };
  const outcomes = await mapConcurrent(items, RESTORE_CONCURRENCY, async (item): Promise<Outcome> => {
    if (item.target.kind === 'skipped')
      return { kind: 'skipped', value: { path: item.path, reason: item.target.reason } };
    if (!(await isDirectory(item.root))) {
      // A worktree merged or discarded since: nothing is there to restore.
      return { kind: 'skipped', value: { path: `${item.root}/${item.path}`, reason: 'root-removed' } };
    }
    let absolute: string;
    let linkedParent: string | undefined;
    try {
      absolute = await resolveRecordedPath(item.root, item.path);
      options.checkPath?.(item.root, absolute, item.path);
      linkedParent = await symlinkedParent(item.root, item.path);
      absolute = path.join(item.root, item.path);
    } catch (error) {
      return { kind: 'failed', value: failure(item.path, error) };
    }
    // Hash even big files here: the conflict check needs the current content's identity. What a
    // symlinked parent leads to is not this path: as far as the restore goes, the path is absent.
    let observed: Awaited<ReturnType<typeof observePath>> = linkedParent
      ? { state: { kind: 'absent' } }
      : await observePath(absolute, { sizeCapBytes: options.sizeCapBytes, hashLarge: true });
    if (
      observed.state.kind === 'skipped' &&
      observed.state.reason === 'not-a-regular-file' &&
      options.createdDirectories?.has(`${item.root}\0${item.path}`)
    ) {
      // A directory the undone turns created stands where the path was: it goes first.
      observed = { state: { kind: 'absent' } };
    }
    const sameMode =
      item.target.kind !== 'file' ||
      observed.state.kind !== 'file' ||
      observed.state.mode === item.target.mode;
    if (sameState(observed.state, item.target) && sameMode) return { kind: 'unchanged', value: item.path };
    const planned: PlannedWrite = {
      item,
      absolute,
      current: observed.state,
      conflict: !sameState(observed.state, item.expected),
    };
    if (observed.content) planned.content = observed.content;
    return { kind: 'write', value: planned };
  });
  for (const outcome of outcomes) {
    if (outcome.kind === 'write') {
      writes.push(outcome.value);
      if (outcome.value.conflict) conflicts.push(outcome.value.item.path);
    } else if (outcome.kind === 'skipped')
      report.skipped.push(outcome.value as { path: string; reason: string });
    else if (outcome.kind === 'failed') report.failed.push(outcome.value as RestoreFailure);
    else report.unchanged.push(outcome.value as string);
  }
  return { writes, conflicts, report };
}

/** Checks a root and path before the restore touches them. */
export type PathCheck = (root: string, absolute: string, display: string) => void;

/** The first ancestor directory of `relative` (inside `root`) that is a symlink, if any. */
async function symlinkedParent(root: string, relative: string): Promise<string | undefined> {
  const parts = relative.split('/');
  for (let index = 1; index < parts.length; index += 1) {
    const ancestor = parts.slice(0, index).join('/');
    const stats = await lstat(path.join(root, ancestor)).catch(() => undefined);
    if (!stats) return undefined;
    if (stats.isSymbolicLink()) return ancestor;
  }
  return undefined;
}

/** Refuses to write below a symlink (one the restore did not remove, e.g. the user's own). */
async function assertNoSymlinkedParent(root: string, relative: string): Promise<void> {
  const linked = await symlinkedParent(root, relative);
  if (linked) {
    throw new SafeturnError(
      'RESTORE_BLOCKED',
      `${linked} is a symlink now; ${relative} was not written through it.`,
      {
        data: { path: relative, symlink: linked },
      },
    );
  }
}

/** A directory where a file or link must go is never removed by a restore: named, left alone. */
async function assertNoDirectory(absolute: string, display: string): Promise<void> {
  const stats = await lstat(absolute).catch(() => undefined);
  if (stats?.isDirectory()) {
    throw new SafeturnError(
      'RESTORE_BLOCKED',
      `A directory is in the way at ${display}; it was left alone.`,
      {
        data: { path: display },
      },
    );
  }
}

async function ensureParent(root: string, relative: string): Promise<void> {
  const parent = path.posix.dirname(relative);
  if (parent === '.') return;
  const absolute = await resolveRecordedPath(root, parent);
  await mkdir(absolute, { recursive: true });
}

async function removeCurrent(absolute: string): Promise<void> {
  await assertNoDirectory(absolute, absolute);
  await unlink(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/**
 * Writes one planned path: a file (bytes from the blob store, then its mode), a symlink
 * (created beside and renamed over, never followed), or a deletion (only for a tombstone).
 */
export async function applyWrite(write: PlannedWrite, blobs: BlobStore): Promise<'restored' | 'deleted'> {
  const { item, absolute } = write;
  const target = item.target;
  // Re-checked now: the deletions that ran before may have removed a symlinked parent.
  await assertNoSymlinkedParent(item.root, item.path);
  switch (target.kind) {
    case 'absent':
      await removeCurrent(absolute);
      return 'deleted';
    case 'file': {
      if (write.current.kind === 'file' && write.current.sha256 === target.sha256) {
        await chmod(absolute, target.mode);
        return 'restored';
      }
      const content = await blobs.get(target.sha256);
      await ensureParent(item.root, item.path);
      await assertNoDirectory(absolute, item.path);
      await writeFileAtomic(absolute, content, { mode: target.mode });
      await chmod(absolute, target.mode);
      return 'restored';
    }
    case 'symlink': {
      await ensureParent(item.root, item.path);
      await assertNoDirectory(absolute, item.path);
      const temp = path.join(path.dirname(absolute), `.safeturn-link-${randomBytes(6).toString('hex')}`);
      await symlink(target.target, temp);
      try {
        await rename(temp, absolute);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      return 'restored';
    }
    case 'skipped':
      throw new SafeturnError('RESTORE_SKIPPED', `No stored content for ${item.path}.`);
  }
}

/** Applies planned writes one by one; one bad path never stops the rest. */
export async function applyPlan(plan: RestorePlan, blobs: BlobStore): Promise<RestoreReport> {
  const report = plan.report;
  const outcomes = await mapConcurrent(plan.writes, RESTORE_CONCURRENCY, async (write) => {
    try {
      return { write, outcome: await applyWrite(write, blobs) };
    } catch (error) {
      return { write, error };
    }
  });
  for (const { write, outcome, error } of outcomes as {
    write: PlannedWrite;
    outcome?: 'restored' | 'deleted';
    error?: unknown;
  }[]) {
    if (outcome === undefined) {
      report.failed.push(failure(write.item.path, error));
      continue;
    }
    if (outcome === 'deleted') report.deleted.push(write.item.path);
    else report.restored.push(write.item.path);
    if (write.conflict) report.overwritten.push(write.item.path);
  }
  return report;
}

/**
 * Removes directories the agent created, deepest first, only when empty. Returns the removed ones.
 */
export async function removeCreatedDirectories(
  directories: { root: string; path: string }[],
  checkPath?: PathCheck,
): Promise<string[]> {
  const removed: string[] = [];
  const sorted = [...directories].sort(
    (a, b) => b.path.split('/').length - a.path.split('/').length || b.path.localeCompare(a.path),
  );
  const seen = new Set<string>();
  for (const directory of sorted) {
    const key = `${directory.root}\0${directory.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      const absolute = await resolveRecordedPath(directory.root, directory.path);
      checkPath?.(directory.root, absolute, directory.path);
      const stats = await lstat(absolute);
      if (!stats.isDirectory()) continue;
      await rmdir(absolute);
      removed.push(directory.path);
    } catch {
      // Not empty, already gone or not ours to judge: left alone.
    }
  }
  return removed;
}
