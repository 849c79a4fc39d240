import type { TreeEntry } from 'isomorphic-git';
import { readTreeEntries } from './object-reader.js';
import type { TreeStore } from './tree-edit.js';

/** A blob entry of a tree: object id and git mode (`100644`, `100755`, `120000`). */
export interface BlobEntry {
  oid: string;
  mode: string;
}

/** One path that differs between two trees; `before`/`after` are undefined where it is absent. */
export interface FileDelta {
  path: string;
  before?: BlobEntry;
  after?: BlobEntry;
}

async function entriesOf(store: TreeStore, tree: string | undefined): Promise<Map<string, TreeEntry>> {
  const entries = new Map<string, TreeEntry>();
  if (tree === undefined) return entries;
  const list = await readTreeEntries(store, tree);
  for (const entry of list) entries.set(entry.path, entry);
  return entries;
}

function blobOf(entry: TreeEntry | undefined): BlobEntry | undefined {
  return entry !== undefined && entry.type === 'blob' ? { oid: entry.oid, mode: entry.mode } : undefined;
}

function subtreeOf(entry: TreeEntry | undefined): string | undefined {
  return entry?.type === 'tree' ? entry.oid : undefined;
}

async function walk(
  store: TreeStore,
  before: string | undefined,
  after: string | undefined,
  prefix: string,
  out: FileDelta[],
): Promise<void> {
  if (before === after) return;
  const [left, right] = await Promise.all([entriesOf(store, before), entriesOf(store, after)]);
  const names = [...new Set([...left.keys(), ...right.keys()])].sort();
  for (const name of names) {
    const oldEntry = left.get(name);
    const newEntry = right.get(name);
    if (oldEntry?.oid === newEntry?.oid && oldEntry?.mode === newEntry?.mode) continue;
    const filePath = `${prefix}${name}`;
    const oldBlob = blobOf(oldEntry);
    const newBlob = blobOf(newEntry);
    if (oldBlob !== undefined || newBlob !== undefined) {
      out.push({
        path: filePath,
        ...(oldBlob ? { before: oldBlob } : {}),
        ...(newBlob ? { after: newBlob } : {}),
      });
    }
    const oldSubtree = subtreeOf(oldEntry);
    const newSubtree = subtreeOf(newEntry);
    if (oldSubtree !== undefined || newSubtree !== undefined)
      await walk(store, oldSubtree, newSubtree, `${filePath}/`, out);
  }
}

/**
 * Lists the files that differ between two trees, reading only subtrees whose ids differ
 * (cost grows with the change, not with the tree). Sorted by path; submodule entries are ignored.
 *
 * @param before - tree id, or undefined for the empty tree.
 * @param after - tree id, or undefined for the empty tree.
 */
export async function diffTrees(
  store: TreeStore,
  before: string | undefined,
  after: string | undefined,
): Promise<FileDelta[]> {
  const out: FileDelta[] = [];
  await walk(store, before, after, '', out);
  return out.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

/**
 * Finds the entry at a workspace-relative path in a tree, reading one tree per path segment.
 *
 * @returns the blob entry, or undefined when the path is absent or is a directory.
 */
export async function lookupBlob(
  store: TreeStore,
  tree: string | undefined,
  filePath: string,
): Promise<BlobEntry | undefined> {
  let current = tree;
  const segments = filePath.split('/');
  for (const [index, segment] of segments.entries()) {
    const entry = (await entriesOf(store, current)).get(segment);
    if (entry === undefined) return undefined;
    if (index === segments.length - 1) return blobOf(entry);
    current = subtreeOf(entry);
    if (current === undefined) return undefined;
  }
  return undefined;
}
