import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { sha256 } from '../../core/hash.js';

/**
 * One cached entry: `[mtimeNs (decimal string), size, ino, mode, sha256 | null, symlinkTarget?]`.
 * For a file, a `null` hash means its content is not in the blob store (over the size cap,
 * unreadable). Every non-null hash in a saved cache is in the blob store: the cache is written
 * only after its blobs. An entry with a sixth element is a symlink.
 */
export type CachedStat =
  | [string, number, number, number, string | null]
  | [string, number, number, number, null, string];

const cacheSchema = z.object({
  v: z.literal(2),
  root: z.string(),
  /** When the scan that produced the cache began, ns since the epoch (decimal string). */
  takenAtNs: z.string(),
  entries: z.record(
    z.string(),
    z.union([
      z.tuple([z.string(), z.number(), z.number(), z.number(), z.string().nullable()]),
      z.tuple([z.string(), z.number(), z.number(), z.number(), z.null(), z.string()]),
    ]),
  ),
});

/** The bash staging baseline: path -> stat and content hash, as of one scan. */
export interface StatCache {
  root: string;
  takenAtNs: bigint;
  entries: Map<string, CachedStat>;
}

/** `<projectDir>/stat-cache.json` for the workspace, `stat-cache-<hash>.json` for another root. */
export function statCachePath(projectDir: string, root: string, workspace: string): string {
  return path.join(
    projectDir,
    root === workspace ? 'stat-cache.json' : `stat-cache-${sha256(root).slice(0, 12)}.json`,
  );
}

async function readCache(file: string): Promise<z.infer<typeof cacheSchema> | undefined> {
  try {
    const parsed = cacheSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Loads a cache; a missing, unreadable or invalid file is an empty cache (it is only an accelerator). */
export async function loadStatCache(file: string, root: string): Promise<StatCache> {
  const data = await readCache(file);
  if (data && data.root === root) {
    return {
      root,
      takenAtNs: BigInt(data.takenAtNs),
      entries: new Map(Object.entries(data.entries) as [string, CachedStat][]),
    };
  }
  return { root, takenAtNs: 0n, entries: new Map() };
}

/** Saves a cache atomically. */
export async function saveStatCache(file: string, cache: StatCache): Promise<void> {
  const entries: Record<string, CachedStat> = {};
  for (const [key, value] of cache.entries) entries[key] = value;
  await writeFileAtomic(
    file,
    JSON.stringify({ v: 2, root: cache.root, takenAtNs: cache.takenAtNs.toString(), entries }),
  );
}

/** Hashes referenced by a saved cache (gc keeps them). */
export async function statCacheHashes(file: string): Promise<string[]> {
  const data = await readCache(file);
  return data ? Object.values(data.entries).flatMap((entry) => (entry[4] ? [entry[4]] : [])) : [];
}
