import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type CommitContext, landRecord } from './commit-writer.js';
import { readCommitObject } from './object-reader.js';
import { listPendingRecords } from './pending-records.js';
import { inspectRef, listSafeturnRefs, reflogOids, refPrefix, updateRef } from './refs.js';

/** What {@link repairRepository} found and fixed. */
export interface RepairReport {
  /** Refs that were torn or pointed at a missing commit, and what became of them. */
  refs: Array<{ ref: string; action: 'restored-from-reflog' | 'removed'; oid?: string }>;
  /**
   * Pending commits (queued by a process that died, or that failed earlier) landed now, or found
   * already landed (the process died after moving the ref) and only removed.
   */
  replayed: Array<{ sessionId: string; turnId: string; commitId: string }>;
  /** Pending-record files that could not be parsed, renamed to `<name>.corrupt`. */
  corruptRecords: string[];
  /**
   * Leftover ref temp files of killed writers removed. (Object temp files are named `tmp_obj_*`,
   * which real git ignores and `git gc` removes.)
   */
  removedTempFiles: number;
}

async function commitExists(context: CommitContext, oid: string): Promise<boolean> {
  try {
    await readCommitObject(context, oid);
    return true;
  } catch {
    return false;
  }
}

async function removeStale(file: string, olderThanMs: number): Promise<boolean> {
  const stats = await stat(file).catch(() => undefined);
  if (stats === undefined || Date.now() - stats.mtimeMs < olderThanMs) return false;
  await rm(file, { force: true });
  return true;
}

async function removeTempFiles(gitdir: string): Promise<number> {
  let removed = 0;
  const refsDir = path.join(gitdir, refPrefix);
  for (const name of await readdir(refsDir).catch(() => [] as string[])) {
    if (name.endsWith('.safeturn-tmp') && (await removeStale(path.join(refsDir, name), 60_000))) removed += 1;
  }
  return removed;
}

/**
 * Repairs a shadow repository (call under the repository lock): restores torn refs (or refs to a
 * missing commit) from their reflog, lands every pending commit record (idempotent: a record whose
 * commit is already on its ref is only removed), and removes temp files left by killed writers.
 *
 * @param timeMs - current time, for the reflog of restored refs.
 */
export async function repairRepository(context: CommitContext, timeMs: number): Promise<RepairReport> {
  const report: RepairReport = { refs: [], replayed: [], corruptRecords: [], removedTempFiles: 0 };
  for (const name of await listSafeturnRefs(context.gitdir)) {
    const state = await inspectRef(context.gitdir, name);
    if (state.state === 'ok' && (await commitExists(context, state.oid))) continue;
    let restored: string | undefined;
    for (const oid of await reflogOids(context.gitdir, name)) {
      if (await commitExists(context, oid)) {
        restored = oid;
        break;
      }
    }
    if (restored === undefined) {
      await rm(path.join(context.gitdir, name), { force: true });
      report.refs.push({ ref: name, action: 'removed' });
    } else {
      await updateRef({
        gitdir: context.gitdir,
        name,
        oid: restored,
        previous: undefined,
        message: 'safeturn repair: restored from reflog',
        timeMs,
      });
      report.refs.push({ ref: name, action: 'restored-from-reflog', oid: restored });
    }
  }
  const listing = await listPendingRecords(context.pendingDir);
  report.corruptRecords = listing.corrupt;
  for (const record of listing.records) {
    const commitId = await landRecord(context, record);
    report.replayed.push({ sessionId: record.sessionId, turnId: record.turnId, commitId });
  }
  report.removedTempFiles = await removeTempFiles(context.gitdir);
  return report;
}
