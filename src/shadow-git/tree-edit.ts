import type { TreeEntry } from 'isomorphic-git';
import { type ObjectSource, readTreeEntries, rememberTree } from './object-reader.js';
import {
  newWriteBatch,
  type ObjectStore,
  scheduleTreeObject,
  settleWrites,
  type WriteBatch,
} from './object-writer.js';

/** Git file modes safeturn stores. */
export type BlobMode = '100644' | '100755' | '120000';

/** What one changed path becomes in the next tree. */
export type TreeOperation =
  | { kind: 'set'; oid: string; mode: BlobMode }
  | { kind: 'delete' }
  /** The path is a directory now: a file entry there goes, a subtree stays. */
  | { kind: 'directory' };

/** One path and what becomes of it. */
export interface TreeChange {
  path: string;
  operation: TreeOperation;
}

interface EditNode {
  operation?: TreeOperation;
  children: Map<string, EditNode>;
}

/** Where trees are read from (isomorphic-git) and written to (the loose-object writer). */
export interface TreeStore extends ObjectStore, ObjectSource {}

function buildEditTree(changes: Iterable<TreeChange>): EditNode {
  const root: EditNode = { children: new Map() };
  for (const change of changes) {
    let node = root;
    for (const segment of change.path.split('/')) {
      let child = node.children.get(segment);
      if (!child) {
        child = { children: new Map() };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.operation = change.operation;
  }
  return root;
}

function sameEntry(left: TreeEntry | undefined, right: TreeEntry | undefined): boolean {
  return left?.oid === right?.oid && left?.mode === right?.mode;
}

async function rewrite(
  store: TreeStore,
  batch: WriteBatch,
  treeOid: string | undefined,
  node: EditNode,
): Promise<string | undefined> {
  const entries = new Map<string, TreeEntry>();
  if (treeOid !== undefined) {
    const tree = await readTreeEntries(store, treeOid);
    for (const entry of tree) entries.set(entry.path, entry);
  }
  let changed = false;
  const results = await Promise.all(
    [...node.children].map(async ([name, child]): Promise<[string, TreeEntry | undefined]> => {
      const existing = entries.get(name);
      let entry: TreeEntry | undefined = existing;
      const operation = child.operation;
      if (operation?.kind === 'set') {
        // A file here means nothing can exist below it: child changes are deletions and are moot.
        return [name, { mode: operation.mode, path: name, oid: operation.oid, type: 'blob' }];
      }
      if (operation?.kind === 'delete') entry = undefined;
      if (operation?.kind === 'directory' && existing?.type !== 'tree') entry = undefined;
      if (child.children.size > 0) {
        const subtree = await rewrite(store, batch, entry?.type === 'tree' ? entry.oid : undefined, child);
        entry =
          subtree === undefined ? undefined : { mode: '040000', path: name, oid: subtree, type: 'tree' };
      }
      return [name, entry];
    }),
  );
  for (const [name, entry] of results) {
    if (sameEntry(entries.get(name), entry)) continue;
    changed = true;
    if (entry === undefined) entries.delete(name);
    else entries.set(name, entry);
  }
  if (!changed && treeOid !== undefined) return treeOid;
  if (entries.size === 0) return undefined;
  const list = [...entries.values()];
  const oid = scheduleTreeObject(store, batch, list);
  rememberTree(store, oid, list);
  return oid;
}

/**
 * Applies path changes to a tree, reading and rewriting only the trees on the changed paths
 * (O(changed paths × depth), independent of the size of the tree). Empty subtrees are dropped,
 * as git has no empty directories.
 *
 * @param store - the repository.
 * @param baseTree - object id of the tree to start from; undefined for an empty tree.
 * @param changes - workspace-relative POSIX paths and what they become.
 * @returns the object id of the new root tree (the empty tree when nothing is left).
 */
export async function applyTreeChanges(
  store: TreeStore,
  baseTree: string | undefined,
  changes: Iterable<TreeChange>,
): Promise<string> {
  const root = buildEditTree(changes);
  const batch = newWriteBatch();
  try {
    const result = await rewrite(store, batch, baseTree, root);
    return result ?? scheduleTreeObject(store, batch, []);
  } finally {
    // Even when a read failed: no write may outlive this call; a commit may only name trees on disk.
    await settleWrites(batch);
  }
}
