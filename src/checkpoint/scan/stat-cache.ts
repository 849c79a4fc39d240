import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../core/atomic-write.js';
import { sha256 } from '../../core/hash.js';

/**
 * One cached file: `[mtimeNs (decimal string), size, ino, mode, sha256 | null]`. A `null` hash
 * means the content is not in the blob store (over the size cap, unreadable). Every non-null hash
 * in a saved cache is in the blob store: the cache is written only after its blobs.
 */
export type CachedStat = [string, number, number, number, string | null];

const cacheSchema = z.object({
  v: z.literal(1),
  root: z.string(),
  /** When the scan that produced the cache began, ns since the epoch (decimal string). */
  takenAtNs: z.string(),
  entries: z.record(z.string(), z.tuple([z.string(), z.number(), z.number(), z.number(), z.string().nullable()])),
});

/** The bash staging baseline: path -> stat and content hash, as of one scan. */
export interface StatCache {
  root: string;
  takenAtNs: bigint;
  entries: Map<string, CachedStat>;
}

/** `<projectDir>/stat-cache.json` for the workspace, `stat-cache-<hash>.json` for another root. */
export function statCachePath(projectDir: string, root: string, workspace: string): string {
  return path.join(projectDir, root === workspace ? 'stat-cache.json' : `stat-cache-${sha256(root).slice(0, 12)}.json`);
}

/** Loads a cache; a missing, unreadable or invalid file is an empty cache (it is only an accelerator). */
export async function loadStatCache(file: string, root: string): Promise<StatCache> {
  try {
    const parsed = cacheSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (parsed.success && parsed.data.root === root) {
      return { root, takenAtNs: BigInt(parsed.data.takenAtNs), entries: new Map(Object.entries(parsed.data.entries)) };
    }
  } catch {
    // fall through to an empty cache
  }
  return { root, takenAtNs: 0n, entries: new Map() };
}

/** Saves a cache atomically. */
export async function saveStatCache(file: string, cache: StatCache): Promise<void> {
  const entries: Record<string, CachedStat> = {};
  for (const [key, value] of cache.entries) entries[key] = value;
  await writeFileAtomic(file, JSON.stringify({ v: 1, root: cache.root, takenAtNs: cache.takenAtNs.toString(), entries }));
}

/** Hashes referenced by a saved cache (gc keeps them). */
export async function statCacheHashes(file: string): Promise<string[]> {
  try {
    const parsed = cacheSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!parsed.success) return [];
    return Object.values(parsed.data.entries).flatMap((entry) => (entry[4] ? [entry[4]] : []));
  } catch {
    return [];
  }
}
