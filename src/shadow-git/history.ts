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

/** Every safeturn commit reachable from `refs/safeturn/*` (first parents), each once, unordered. */
export async function allCommits(store: TreeStore): Promise<HistoryCommit[]> {
  const seen = new Set<string>();
  const commits: HistoryCommit[] = [];
  for (const name of await listSafeturnRefs(store.gitdir)) {
    let oid = await readRef(store.gitdir, name);
    while (oid !== undefined && !seen.has(oid)) {
      seen.add(oid);
      const commit = await readHistoryCommit(store, oid);
      if (commit === undefined) break;
      commits.push(commit);
      oid = commit.parent;
    }
  }
  return commits;
}

/** The baseline commit, when there is one. */
export async function baselineCommit(store: TreeStore): Promise<HistoryCommit | undefined> {
  const oid = await readRef(store.gitdir, baselineRef);
  return oid === undefined ? undefined : readHistoryCommit(store, oid);
}
