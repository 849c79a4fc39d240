import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import git, { type CommitObject, type TreeEntry } from 'isomorphic-git';
import type { GitFileSystem } from './git-fs.js';
import { ShadowGitError } from './shadow-git-error.js';

/** Where objects are read from; `parsed` caches parsed trees and commits (objects never change). */
export interface ObjectSource {
  fs: GitFileSystem;
  gitdir: string;
  /** isomorphic-git's cache object. */
  cache: object;
  /** Parsed trees and commits by object id, bounded by {@link parsedCacheLimit}. */
  parsed: Map<string, readonly TreeEntry[] | CommitObject>;
}

/** Most parsed objects kept per handle. */
export const parsedCacheLimit = 20_000;

function remember<Value extends readonly TreeEntry[] | CommitObject>(
  source: ObjectSource,
  oid: string,
  value: Value,
): Value {
  if (source.parsed.size >= parsedCacheLimit) source.parsed.clear();
  source.parsed.set(oid, value);
  return value;
}

/** Caches the entries of a tree this handle just wrote, so the next turn does not read it back. */
export function rememberTree(source: ObjectSource, oid: string, entries: readonly TreeEntry[]): void {
  remember(source, oid, entries);
}

function parseTree(content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let offset = 0;
  while (offset < content.length) {
    const space = content.indexOf(0x20, offset);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw new Error('malformed tree');
    const rawMode = content.toString('latin1', offset, space);
    const mode = rawMode === '40000' ? '040000' : rawMode;
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    entries.push({
      mode,
      path: content.toString('utf8', space + 1, nul),
      oid: content.toString('hex', nul + 1, nul + 21),
      type,
    });
    offset = nul + 21;
  }
  return entries;
}

// Trees are read on every commit, along each changed path: a loose tree is read and inflated
// synchronously (tens of microseconds, where isomorphic-git's async path costs about a millisecond
// on a busy machine); anything else (a packed object after a manual `git gc`) goes to isomorphic-git.
function readLooseTree(source: ObjectSource, oid: string): TreeEntry[] | undefined {
  let deflated: Buffer;
  try {
    deflated = readFileSync(path.join(source.gitdir, 'objects', oid.slice(0, 2), oid.slice(2)));
  } catch {
    return undefined;
  }
  const wrapped = inflateSync(deflated);
  const nul = wrapped.indexOf(0);
  if (
    createHash('sha1').update(wrapped).digest('hex') !== oid ||
    !wrapped.toString('latin1', 0, nul).startsWith('tree ')
  ) {
    throw new ShadowGitError(`Object ${oid} in ${source.gitdir} is corrupt or not a tree.`, {
      data: { reason: 'corrupt', gitdir: source.gitdir, oid },
    });
  }
  return parseTree(wrapped.subarray(nul + 1));
}

/** The entries of a tree (loose trees read directly, others with isomorphic-git; cached by id). */
export async function readTreeEntries(source: ObjectSource, oid: string): Promise<readonly TreeEntry[]> {
  const cached = source.parsed.get(oid);
  if (Array.isArray(cached)) return cached;
  const loose = readLooseTree(source, oid);
  if (loose !== undefined) return remember(source, oid, loose);
  const { tree } = await git.readTree({ fs: source.fs, gitdir: source.gitdir, oid, cache: source.cache });
  return remember(source, oid, tree);
}

/** A parsed commit (read with isomorphic-git, cached by id). */
export async function readCommitObject(source: ObjectSource, oid: string): Promise<CommitObject> {
  const cached = source.parsed.get(oid);
  if (cached !== undefined && !Array.isArray(cached)) return cached as CommitObject;
  const { commit } = await git.readCommit({ fs: source.fs, gitdir: source.gitdir, oid, cache: source.cache });
  return remember(source, oid, commit);
}

/** The bytes of a blob. */
export async function readBlobBytes(source: ObjectSource, oid: string): Promise<Uint8Array> {
  return (await git.readBlob({ fs: source.fs, gitdir: source.gitdir, oid, cache: source.cache })).blob;
}
