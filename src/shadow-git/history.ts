import { type CommitInfo, parseCommitMessage } from './commit-message.js';
import { readCommitObject } from './object-reader.js';
import { baselineRef, listSafeturnRefs, readRef, sessionRef } from './refs.js';
import type { TreeStore } from './tree-edit.js';

/** A shadow commit read back: ids plus what its message says. */
export interface HistoryCommit {
  oid: string;
  parent: string | undefined;
  tree: string;
  info: CommitInfo;
}

/** Reads one commit; undefined when it is not a safeturn commit. */
export async function readHistoryCommit(store: TreeStore, oid: string): Promise<HistoryCommit | undefined> {
  const commit = await readCommitObject(store, oid);
  const info = parseCommitMessage(commit.message);
  return info === undefined ? undefined : { oid, parent: commit.parent[0], tree: commit.tree, info };
}

/**
 * A session's own commits, newest first: its ref's first-parent chain up to the first commit of
 * another session (where its history forked) or the baseline.
 */
export async function* sessionCommits(store: TreeStore, sessionId: string): AsyncGenerator<HistoryCommit> {
  let oid = await readRef(store.gitdir, sessionRef(sessionId));
  while (oid !== undefined) {
    const commit = await readHistoryCommit(store, oid);
    if (commit === undefined || commit.info.kind !== 'turn' || commit.info.sessionId !== sessionId) return;
    yield commit;
    oid = commit.parent;
  }
}

/**
 * Every safeturn commit reachable from `refs/safeturn/*` (first parents), each once, newest first:
 * a lazy merge of the refs' histories by commit time, so a query with a limit reads only about
 * `limit` commits.
 */
export async function* newestFirst(store: TreeStore): AsyncGenerator<HistoryCommit> {
  const seen = new Set<string>();
  const heads: HistoryCommit[] = [];
  for (const name of await listSafeturnRefs(store.gitdir)) {
    const oid = await readRef(store.gitdir, name);
    if (oid === undefined || heads.some((head) => head.oid === oid)) continue;
    const commit = await readHistoryCommit(store, oid);
    if (commit !== undefined) heads.push(commit);
  }
  while (heads.length > 0) {
    let newest = 0;
    for (const [index, head] of heads.entries())
      if (head.info.timeMs > heads[newest]!.info.timeMs) newest = index;
    const commit = heads[newest]!;
    if (seen.has(commit.oid)) {
      heads.splice(newest, 1);
      continue;
    }
    seen.add(commit.oid);
    yield commit;
    // A parent already yielded was reached by another history, which covers what lies below it.
    const next =
      commit.parent !== undefined && !seen.has(commit.parent)
        ? await readHistoryCommit(store, commit.parent)
        : undefined;
    if (next === undefined) heads.splice(newest, 1);
    else heads[newest] = next;
  }
}

/** The baseline commit, when there is one. */
export async function baselineCommit(store: TreeStore): Promise<HistoryCommit | undefined> {
  const oid = await readRef(store.gitdir, baselineRef);
  return oid === undefined ? undefined : readHistoryCommit(store, oid);
}
