import { formatCommitMessage, parseCommitMessage, type SkippedPath } from './commit-message.js';
import { readCommitObject } from './object-reader.js';
import { writeCommitObject, writeObject } from './object-writer.js';
import { type PendingRecord, pendingRecordExists, removePendingRecord } from './pending-records.js';
import { baselineRef, listSafeturnRefs, readRef, sessionRef, updateRef } from './refs.js';
import { shadowAuthor } from './repository-layout.js';
import { applyTreeChanges, type TreeChange, type TreeStore } from './tree-edit.js';
import { readPathState } from './workspace-state.js';

/** What the commit steps need to reach the repository. */
export interface CommitContext extends TreeStore {
  workspace: string;
  pendingDir: string;
  maxFileBytes: number;
}

/** The changed paths of a turn turned into tree changes, with their blobs already written. */
export interface Snapshot {
  changes: TreeChange[];
  skipped: SkippedPath[];
}

async function mapWithLimit<Item>(
  items: AsyncIterable<Item> | Iterable<Item>,
  limit: number,
  action: (item: Item) => Promise<void>,
): Promise<void> {
  const running = new Set<Promise<void>>();
  const failures: unknown[] = [];
  try {
    for await (const item of items) {
      if (failures.length > 0) break;
      const task = action(item).then(
        () => undefined,
        (error: unknown) => {
          failures.push(error);
        },
      );
      const tracked = task.finally(() => running.delete(tracked));
      running.add(tracked);
      if (running.size >= limit) await Promise.race(running);
    }
  } finally {
    // Also when the iterable itself throws: no task keeps running after this returns.
    await Promise.all(running);
  }
  if (failures.length > 0) throw failures[0];
}

/**
 * Reads the current state of each path from the workspace and writes the blobs of files and
 * symlinks (objects are content-addressed and written atomically, so this needs no lock).
 *
 * @param paths - workspace-relative POSIX paths in normal form.
 * @param concurrency - how many files are read and written at once.
 */
export async function snapshotPaths(
  context: CommitContext,
  paths: AsyncIterable<string> | Iterable<string>,
  concurrency: number,
  abortSignal?: AbortSignal,
): Promise<Snapshot> {
  const snapshot: Snapshot = { changes: [], skipped: [] };
  const parents = new Map<string, Promise<boolean>>();
  await mapWithLimit(paths, concurrency, async (relative) => {
    abortSignal?.throwIfAborted();
    const state = await readPathState({
      workspace: context.workspace,
      relative,
      maxFileBytes: context.maxFileBytes,
      parents,
    });
    switch (state.kind) {
      case 'file': {
        const oid = await writeObject(context, 'blob', state.bytes);
        snapshot.changes.push({
          path: relative,
          operation: { kind: 'set', oid, mode: state.executable ? '100755' : '100644' },
        });
        return;
      }
      case 'symlink': {
        const oid = await writeObject(context, 'blob', state.target);
        snapshot.changes.push({ path: relative, operation: { kind: 'set', oid, mode: '120000' } });
        return;
      }
      case 'absent':
        snapshot.changes.push({ path: relative, operation: { kind: 'delete' } });
        return;
      case 'directory':
        snapshot.changes.push({ path: relative, operation: { kind: 'directory' } });
        return;
      case 'skipped':
        snapshot.skipped.push({ path: relative, reason: state.reason });
        return;
    }
  });
  const byPath = (left: { path: string }, right: { path: string }) =>
    left.path < right.path ? -1 : left.path > right.path ? 1 : 0;
  snapshot.changes.sort(byPath);
  snapshot.skipped.sort(byPath);
  return snapshot;
}

async function treeOf(context: CommitContext, commit: string | undefined): Promise<string | undefined> {
  if (commit === undefined) return undefined;
  return (await readCommitObject(context, commit)).tree;
}

/** Searches a session's chain (newest first, at most `limit` commits) for the commit made from a record. */
export async function findRecordCommit(
  context: CommitContext,
  record: PendingRecord,
  limit: number,
): Promise<string | undefined> {
  let oid = await readRef(context.gitdir, sessionRef(record.sessionId));
  for (let index = 0; oid !== undefined && index < limit; index += 1) {
    const commit = await readCommitObject(context, oid);
    const info = parseCommitMessage(commit.message);
    if (info?.sessionId !== record.sessionId) return undefined;
    if (info.recordId === record.id) return oid;
    oid = commit.parent[0];
  }
  return undefined;
}

/** The newest commit any ref points at (by commit time): where a new session's history forks from. */
async function newestTip(context: CommitContext): Promise<string | undefined> {
  let newest: { oid: string; timeMs: number } | undefined;
  for (const name of await listSafeturnRefs(context.gitdir)) {
    const oid = await readRef(context.gitdir, name);
    if (oid === undefined) continue;
    const commit = await readCommitObject(context, oid);
    const timeMs = parseCommitMessage(commit.message)?.timeMs ?? commit.committer.timestamp * 1000;
    if (newest === undefined || timeMs >= newest.timeMs) newest = { oid, timeMs };
  }
  return newest?.oid;
}

async function writeCommit(
  context: CommitContext,
  tree: string,
  parent: string | undefined,
  message: string,
  timeMs: number,
): Promise<string> {
  return writeCommitObject(context, {
    tree,
    parents: parent === undefined ? [] : [parent],
    author: { ...shadowAuthor, timestamp: Math.floor(timeMs / 1000) },
    message,
  });
}

/**
 * Lands a pending record (call under the repository lock): its tree is the previous commit's
 * tree with exactly the record's changes, its parent the session's tip (or, for a session's first
 * turn, the newest tip of any session or the baseline, where its history forks from); then the
 * session ref moves and the record is removed. Idempotent: a record already landed (the process
 * died after moving the ref) is only removed.
 *
 * @returns the commit id.
 */
export async function landRecord(context: CommitContext, record: PendingRecord): Promise<string> {
  const ref = sessionRef(record.sessionId);
  // A record still on disk was landed at most as the tip (the lander died before removing it); a
  // record gone from disk was landed by another process's repair, possibly below later commits.
  const onDisk = await pendingRecordExists(context.pendingDir, record.id);
  const landed = await findRecordCommit(context, record, onDisk ? 1 : 100_000);
  if (landed !== undefined) {
    await removePendingRecord(context.pendingDir, record.id);
    return landed;
  }
  const tip = await readRef(context.gitdir, ref);
  const parent = tip ?? (await newestTip(context));
  const tree = await applyTreeChanges(context, await treeOf(context, parent), record.changes);
  const message = formatCommitMessage({
    kind: 'turn',
    sessionId: record.sessionId,
    turnId: record.turnId,
    label: record.label,
    timeMs: record.timeMs,
    recordId: record.id,
    skipped: record.skipped,
  });
  const commit = await writeCommit(context, tree, parent, message, record.timeMs);
  const reflogMessage = `commit: turn ${record.turnId} of ${record.sessionId}`;
  await updateRef({
    gitdir: context.gitdir,
    name: ref,
    oid: commit,
    previous: tip,
    message: reflogMessage,
    timeMs: record.timeMs,
  });
  await removePendingRecord(context.pendingDir, record.id);
  return commit;
}

/**
 * Lands the baseline commit (call under the lock) from a snapshot of the covered files, unless
 * one exists already.
 *
 * @returns the baseline commit id (the existing one when there was one).
 */
export async function landBaseline(
  context: CommitContext,
  snapshot: Snapshot,
  label: string,
  timeMs: number,
): Promise<string> {
  const existing = await readRef(context.gitdir, baselineRef);
  if (existing !== undefined) return existing;
  const tree = await applyTreeChanges(context, undefined, snapshot.changes);
  const message = formatCommitMessage({ kind: 'baseline', label, timeMs, skipped: snapshot.skipped });
  const commit = await writeCommit(context, tree, undefined, message, timeMs);
  await updateRef({
    gitdir: context.gitdir,
    name: baselineRef,
    oid: commit,
    previous: undefined,
    message: 'commit (initial): baseline',
    timeMs,
  });
  return commit;
}
