import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { constants, deflate, deflateSync } from 'node:zlib';
import { temporaryObjectPrefix } from './git-fs.js';

const deflateAsync = promisify(deflate);
// Below this size compressing on the main thread is cheaper than a round trip through the threadpool.
const syncDeflateLimit = 256 * 1024;

/** A git object type safeturn writes. */
export type ObjectType = 'blob' | 'tree' | 'commit';

/** Where loose objects go, and which ones this handle already knows to exist. */
export interface ObjectStore {
  gitdir: string;
  /** Object ids known to be on disk (skips a stat per repeated write). Bounded by the caller. */
  known: Set<string>;
}

async function persistObject(
  store: ObjectStore,
  oid: string,
  header: Buffer,
  content: Uint8Array,
): Promise<void> {
  const directory = path.join(store.gitdir, 'objects', oid.slice(0, 2));
  const file = path.join(directory, oid.slice(2));
  const existing = await stat(file).catch(() => undefined);
  if (existing === undefined) {
    const wrapped = Buffer.concat([header, content]);
    const options = { level: constants.Z_BEST_SPEED };
    const deflated =
      wrapped.length <= syncDeflateLimit
        ? deflateSync(wrapped, options)
        : await deflateAsync(wrapped, options);
    const temp = path.join(directory, `${temporaryObjectPrefix}${randomBytes(8).toString('hex')}`);
    try {
      await writeFile(temp, deflated, { mode: 0o444 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(directory, { recursive: true });
      await writeFile(temp, deflated, { mode: 0o444 });
    }
    try {
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
  if (store.known.size > 100_000) store.known.clear();
  store.known.add(oid);
}

function objectId(header: Buffer, content: Uint8Array): string {
  return createHash('sha1').update(header).update(content).digest('hex');
}

/**
 * Writes one loose object (`objects/aa/bbbb…`, zlib-deflated `"<type> <size>\0" + content`) unless
 * it exists. The write is a temp file (`tmp_obj_*`, which real git ignores) renamed into place, so
 * a killed process never leaves a torn object. Same format and ids as `git hash-object -w`.
 *
 * @returns the object id (40 hex, sha1), once the object is on disk.
 */
export async function writeObject(
  store: ObjectStore,
  type: ObjectType,
  content: Uint8Array,
): Promise<string> {
  const header = Buffer.from(`${type} ${content.length}\0`);
  const oid = objectId(header, content);
  if (!store.known.has(oid)) await persistObject(store, oid, header, content);
  return oid;
}

/**
 * Object writes started but not yet awaited: the id of an object is known as soon as it is
 * hashed, so a parent tree need not wait for its subtrees to reach the disk. Await
 * {@link settleWrites} before anything (a commit, a ref) depends on them being on disk.
 */
export interface WriteBatch {
  scheduled: Set<string>;
  writes: Promise<void>[];
  errors: unknown[];
}

/** A new, empty {@link WriteBatch}. */
export function newWriteBatch(): WriteBatch {
  return { scheduled: new Set(), writes: [], errors: [] };
}

/** Hashes an object and starts writing it in `batch`. @returns its id, at once. */
export function scheduleObject(
  store: ObjectStore,
  batch: WriteBatch,
  type: ObjectType,
  content: Uint8Array,
): string {
  const header = Buffer.from(`${type} ${content.length}\0`);
  const oid = objectId(header, content);
  if (!store.known.has(oid) && !batch.scheduled.has(oid)) {
    batch.scheduled.add(oid);
    batch.writes.push(
      persistObject(store, oid, header, content).catch((error: unknown) => {
        batch.errors.push(error);
      }),
    );
  }
  return oid;
}

/**
 * Waits for every write of a batch.
 *
 * @throws the first write error.
 */
export async function settleWrites(batch: WriteBatch): Promise<void> {
  await Promise.all(batch.writes);
  if (batch.errors.length > 0) throw batch.errors[0];
}

/** One entry of a tree to write. */
export interface TreeItem {
  /** `100644`, `100755`, `120000` or `040000`. */
  mode: string;
  /** Entry name (one path segment). */
  path: string;
  oid: string;
}

function sortKey(item: TreeItem): Buffer {
  // git orders entries by name bytes, a directory as if its name ended with '/'.
  return Buffer.from(item.mode === '040000' ? `${item.path}/` : item.path, 'utf8');
}

/** Serialises a tree object in git's canonical entry order and schedules its write. @returns the tree id. */
export function scheduleTreeObject(store: ObjectStore, batch: WriteBatch, items: TreeItem[]): string {
  const sorted = items
    .map((item) => ({ item, key: sortKey(item) }))
    .sort((left, right) => Buffer.compare(left.key, right.key));
  const parts: Buffer[] = [];
  for (const { item } of sorted) {
    parts.push(
      Buffer.from(`${item.mode === '040000' ? '40000' : item.mode} ${item.path}\0`, 'utf8'),
      Buffer.from(item.oid, 'hex'),
    );
  }
  return scheduleObject(store, batch, 'tree', Buffer.concat(parts));
}

/** Author and committer of a commit. */
export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

/** Serialises and writes a commit object (UTC, unsigned). @returns the commit id. */
export async function writeCommitObject(
  store: ObjectStore,
  commit: { tree: string; parents: string[]; author: Signature; message: string },
): Promise<string> {
  const person = `${commit.author.name} <${commit.author.email}> ${commit.author.timestamp} +0000`;
  const lines = [
    `tree ${commit.tree}`,
    ...commit.parents.map((parent) => `parent ${parent}`),
    `author ${person}`,
    `committer ${person}`,
  ];
  return writeObject(store, 'commit', Buffer.from(`${lines.join('\n')}\n\n${commit.message}`, 'utf8'));
}
