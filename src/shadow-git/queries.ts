import git from 'isomorphic-git';
import { UsageError } from '../errors/usage-error.js';
import type { SkippedPath } from './commit-message.js';
import { type HistoryCommit, newestFirst, readHistoryCommit, sessionCommits } from './history.js';
import { readBlobBytes, readCommitObject } from './object-reader.js';
import { readSkippedTurns, type SkippedTurn } from './skipped-turns.js';
import { diffTrees, lookupBlob } from './tree-diff.js';
import type { TreeStore } from './tree-edit.js';

/** A turn: its commit id (4 to 40 hex), or the session and turn ids. */
export type TurnReference = string | { sessionId: string; turnId: string | number };

/** One entry of {@link ShadowRepo.log}, newest first. */
export interface ShadowLogEntry {
  /** `turn`: a committed turn; `baseline`: the first commit; `skipped`: a turn not committed (rule A). */
  kind: 'turn' | 'baseline' | 'skipped';
  sessionId?: string;
  turnId?: string;
  label: string;
  /** The commit; absent for a skipped turn. */
  commitId?: string;
  /** The commit's parent, when it has one. */
  parentId?: string;
  time: Date;
  /** Paths the commit changed (vs its parent), sorted; empty for the baseline and skipped turns. */
  changedPaths: string[];
  /** Changed paths the commit could not store, with the reason (too large, not a file, …). */
  skippedPaths: SkippedPath[];
  /** Why a skipped turn was skipped. */
  reason?: string;
}

/** A file as stored in a turn's commit. */
export interface ShadowFileEntry {
  /** File bytes; for a symlink, the link target. */
  bytes: Uint8Array;
  /** Git mode: `0o100644`, `0o100755` or `0o120000`. */
  mode: number;
  isSymlink: boolean;
  executable: boolean;
}

/**
 * Resolves a turn reference to its commit.
 *
 * @throws UsageError `NO_SUCH_TURN` when no commit matches.
 */
export async function resolveTurnCommit(
  store: TreeStore,
  reference: string | { sessionId: string; turnId: string },
): Promise<HistoryCommit> {
  if (typeof reference === 'string') {
    let commit: HistoryCommit | undefined;
    try {
      const oid = await git.expandOid({
        fs: store.fs,
        gitdir: store.gitdir,
        oid: reference,
        cache: store.cache,
      });
      commit = await readHistoryCommit(store, oid);
    } catch {
      commit = undefined;
    }
    if (commit === undefined) {
      throw new UsageError('NO_SUCH_TURN', `No shadow commit ${reference}.`, {
        data: { commitId: reference },
      });
    }
    return commit;
  }
  for await (const commit of sessionCommits(store, reference.sessionId)) {
    if (commit.info.turnId === reference.turnId) return commit;
  }
  throw new UsageError(
    'NO_SUCH_TURN',
    `Session ${reference.sessionId} has no committed turn ${reference.turnId}.`,
    {
      data: { sessionId: reference.sessionId, turnId: reference.turnId },
    },
  );
}

async function parentTree(store: TreeStore, commit: HistoryCommit): Promise<string | undefined> {
  if (commit.parent === undefined) return undefined;
  return (await readCommitObject(store, commit.parent)).tree;
}

/** The paths a commit changed relative to its first parent. */
export async function changedPaths(store: TreeStore, commit: HistoryCommit): Promise<string[]> {
  return (await diffTrees(store, await parentTree(store, commit), commit.tree)).map((delta) => delta.path);
}

function touches(paths: string[], filter: string): boolean {
  return paths.some((candidate) => candidate === filter || candidate.startsWith(`${filter}/`));
}

/** Options of {@link queryLog}. */
export interface LogQuery {
  session?: string | undefined;
  path?: string | undefined;
  limit: number;
  skippedFile: string;
}

function skippedEntry(skipped: SkippedTurn): ShadowLogEntry {
  return {
    kind: 'skipped',
    sessionId: skipped.sessionId,
    turnId: skipped.turnId,
    label: skipped.label,
    time: new Date(skipped.timeMs),
    changedPaths: [],
    skippedPaths: [],
    reason: skipped.reason,
  };
}

async function commitEntry(
  store: TreeStore,
  commit: HistoryCommit,
  pathFilter: string | undefined,
): Promise<ShadowLogEntry | undefined> {
  const { info } = commit;
  let paths: string[] = [];
  if (info.kind === 'turn') {
    paths = await changedPaths(store, commit);
    if (pathFilter !== undefined && !touches(paths, pathFilter)) return undefined;
  } else if (pathFilter !== undefined && (await lookupBlob(store, commit.tree, pathFilter)) === undefined)
    return undefined;
  return {
    kind: info.kind,
    ...(info.sessionId === undefined ? {} : { sessionId: info.sessionId }),
    ...(info.turnId === undefined ? {} : { turnId: info.turnId }),
    label: info.label,
    commitId: commit.oid,
    ...(commit.parent === undefined ? {} : { parentId: commit.parent }),
    time: new Date(info.timeMs),
    changedPaths: paths,
    skippedPaths: info.skipped,
  };
}

/** See {@link ShadowRepo.log}: commits and skipped turns merged newest first, read lazily up to `limit`. */
export async function queryLog(store: TreeStore, query: LogQuery): Promise<ShadowLogEntry[]> {
  const commits = query.session === undefined ? newestFirst(store) : sessionCommits(store, query.session);
  // Skipped turns carry no paths, so a path query leaves them out; newest first, later lines first on ties.
  const skipped =
    query.path === undefined
      ? (await readSkippedTurns(query.skippedFile))
          .filter((turn) => query.session === undefined || turn.sessionId === query.session)
          .reverse()
          .sort((left, right) => right.timeMs - left.timeMs)
      : [];
  const entries: ShadowLogEntry[] = [];
  let next = 0;
  for await (const commit of commits) {
    while (
      next < skipped.length &&
      skipped[next]!.timeMs >= commit.info.timeMs &&
      entries.length < query.limit
    ) {
      entries.push(skippedEntry(skipped[next]!));
      next += 1;
    }
    if (entries.length >= query.limit) break;
    const entry = await commitEntry(store, commit, query.path);
    if (entry !== undefined) entries.push(entry);
    if (entries.length >= query.limit) break;
  }
  while (next < skipped.length && entries.length < query.limit) {
    entries.push(skippedEntry(skipped[next]!));
    next += 1;
  }
  return entries;
}

/** See {@link ShadowRepo.diff}: the deltas between two commits, or a commit and its parent. */
export async function turnDeltas(store: TreeStore, from: HistoryCommit, to: HistoryCommit | undefined) {
  return to === undefined
    ? diffTrees(store, await parentTree(store, from), from.tree)
    : diffTrees(store, from.tree, to.tree);
}

/** See {@link ShadowRepo.showEntry}. */
export async function readEntry(
  store: TreeStore,
  commit: HistoryCommit,
  filePath: string,
): Promise<ShadowFileEntry | undefined> {
  const blob = await lookupBlob(store, commit.tree, filePath);
  if (blob === undefined) return undefined;
  const bytes = await readBlobBytes(store, blob.oid);
  const mode = Number.parseInt(blob.mode, 8);
  return { bytes, mode, isSymlink: blob.mode === '120000', executable: blob.mode === '100755' };
}
