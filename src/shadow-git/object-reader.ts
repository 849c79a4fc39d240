import git, { type CommitObject, type TreeEntry } from 'isomorphic-git';
import type { GitFileSystem } from './git-fs.js';

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

/** The entries of a tree (read with isomorphic-git, cached by id). */
export async function readTreeEntries(source: ObjectSource, oid: string): Promise<readonly TreeEntry[]> {
  const cached = source.parsed.get(oid);
  if (Array.isArray(cached)) return cached;
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
