import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-write.js';

const operationSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('set'),
    oid: z.string().regex(/^[0-9a-f]{40}$/),
    mode: z.enum(['100644', '100755', '120000']),
  }),
  z.object({ kind: z.literal('delete') }),
  z.object({ kind: z.literal('directory') }),
]);

/** Schema of a pending-commit record as stored on disk (read back with `safeParse`). */
export const pendingRecordSchema = z.object({
  version: z.literal(1),
  id: z.string().regex(/^[0-9]{15}-[0-9]{6}-[0-9a-f]{12}$/),
  sessionId: z.string(),
  turnId: z.string(),
  label: z.string(),
  timeMs: z.number(),
  pid: z.number().int(),
  host: z.string(),
  changes: z.array(z.object({ path: z.string(), operation: operationSchema })),
  skipped: z.array(
    z.object({
      path: z.string(),
      reason: z.enum(['too-large', 'not-a-regular-file', 'unreadable', 'git-metadata']),
    }),
  ),
});

/** A commit that was queued: its blobs are written, its tree, commit and ref not yet. */
export type PendingRecord = z.infer<typeof pendingRecordSchema>;

/** Makes a record id that sorts by time, then by `sequence` within one process. */
export function newRecordId(timeMs: number, sequence: number): string {
  return `${String(Math.max(0, Math.floor(timeMs))).padStart(15, '0')}-${String(sequence % 1_000_000).padStart(6, '0')}-${randomBytes(6).toString('hex')}`;
}

/** The owner fields of a record written by this process. */
export function currentOwner(): { pid: number; host: string } {
  return { pid: process.pid, host: hostname() };
}

/** Writes a record atomically (temp file + rename) before its commit is queued. */
export async function writePendingRecord(pendingDir: string, record: PendingRecord): Promise<void> {
  await writeFileAtomic(path.join(pendingDir, `${record.id}.json`), JSON.stringify(record));
}

/** Removes a record once its commit is on the ref. */
export async function removePendingRecord(pendingDir: string, id: string): Promise<void> {
  await rm(path.join(pendingDir, `${id}.json`), { force: true });
}

/** True while a record's file is still in the pending directory. */
export async function pendingRecordExists(pendingDir: string, id: string): Promise<boolean> {
  try {
    await stat(path.join(pendingDir, `${id}.json`));
    return true;
  } catch {
    return false;
  }
}

/** Records read back from the pending directory, oldest first, plus the files that did not parse. */
export interface PendingListing {
  records: PendingRecord[];
  /** Names of record files that are not valid records (moved aside to `<name>.corrupt`). */
  corrupt: string[];
}

/**
 * Lists pending records, oldest first. Unparsable records are renamed to `<name>.corrupt` and
 * named in the result; temp files older than `staleTempMs` (left by a killed writer) are removed.
 */
export async function listPendingRecords(pendingDir: string, staleTempMs = 60_000): Promise<PendingListing> {
  const listing: PendingListing = { records: [], corrupt: [] };
  let names: string[];
  try {
    names = (await readdir(pendingDir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return listing;
    throw error;
  }
  for (const name of names) {
    const file = path.join(pendingDir, name);
    if (name.endsWith('.safeturn-tmp')) {
      const stats = await stat(file).catch(() => undefined);
      if (stats && Date.now() - stats.mtimeMs > staleTempMs) await rm(file, { force: true });
      continue;
    }
    if (!name.endsWith('.json')) continue;
    let parsed: ReturnType<typeof pendingRecordSchema.safeParse> | undefined;
    try {
      parsed = pendingRecordSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      parsed = undefined;
    }
    if (parsed?.success && `${parsed.data.id}.json` === name) listing.records.push(parsed.data);
    else {
      listing.corrupt.push(name);
      await rename(file, `${file}.corrupt`).catch(() => undefined);
    }
  }
  return listing;
}
