import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { acquireLock } from '../core/lock.js';
import { BlobStore } from './blob-store.js';
import type { FileState } from './file-state.js';
import { Journal } from './journal.js';
import type { JournalRecord } from './journal-records.js';

/** Options of {@link collectGarbage}. */
export interface GcOptions {
  /** `<home>/projects/<id>`. */
  projectDir: string;
  /** Only blobs not modified for this long are deleted (a capture in flight elsewhere is safe). @default 600_000 */
  graceMs?: number;
  /** Prune the oldest turns (all sessions) until the blob store is at most this many bytes. */
  maxStoreBytes?: number;
  /** Clock. @default () => new Date() */
  now?: () => Date;
  abortSignal?: AbortSignal;
}

/** What `gc` did. */
export interface GcReport {
  /** Blobs deleted, and their total size in bytes. */
  deletedBlobs: number;
  freedBytes: number;
  /** Blobs kept and their total size in bytes. */
  keptBlobs: number;
  storeBytes: number;
  /** Turns pruned to get under `maxStoreBytes`, as `session/turn`. */
  prunedTurns: string[];
}

interface TurnRefs {
  session: string;
  turn: string;
  at: string;
  hashes: Set<string>;
}

function addHash(set: Set<string>, state: FileState): void {
  if (state.kind === 'file') set.add(state.sha256);
}

/** Blob references of one session's journal, per live turn, plus those of rewinds/redos. */
function referencesOf(session: string, records: JournalRecord[]): { turns: TurnRefs[]; other: Set<string> } {
  const turns = new Map<string, TurnRefs>();
  const pruned = new Set<string>();
  const other = new Set<string>();
  for (const record of records) {
    switch (record.type) {
      case 'turn':
        turns.set(record.turn, { session, turn: record.turn, at: record.at, hashes: new Set() });
        break;
      case 'capture': {
        const refs = turns.get(record.turn);
        if (refs) addHash(refs.hashes, record.pre);
        break;
      }
      case 'rewind':
      case 'redo':
        for (const entry of record.entries) {
          addHash(other, entry.before);
          addHash(other, entry.after);
        }
        break;
      case 'prune':
        for (const turn of record.turns) pruned.add(turn);
        break;
      default:
        break;
    }
  }
  return { turns: [...turns.values()].filter((refs) => !pruned.has(refs.turn)), other };
}

/**
 * Deletes blobs that no live capture, rewind or redo of any session of the project references;
 * first prunes the oldest turns (across sessions) while the store is over `maxStoreBytes`.
 * Runs under the project lock; a stale lock left by a dead process is taken over.
 */
export async function collectGarbage(options: GcOptions): Promise<GcReport> {
  const now = options.now ?? (() => new Date());
  const graceMs = options.graceMs ?? 600_000;
  const lock = await acquireLock(path.join(options.projectDir, 'gc.lock'), {
    purpose: 'gc',
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  try {
    const sessionsDir = path.join(options.projectDir, 'sessions');
    const sessionNames = await readdir(sessionsDir).catch(() => [] as string[]);
    const journals = new Map<string, Journal>();
    const allTurns: TurnRefs[] = [];
    const always = new Set<string>();
    for (const name of sessionNames) {
      const journal = new Journal(path.join(sessionsDir, name, 'journal.jsonl'));
      journals.set(name, journal);
      const { records } = await journal.read();
      const { turns, other } = referencesOf(name, records);
      allTurns.push(...turns);
      for (const hash of other) always.add(hash);
    }
    const blobs = new BlobStore(path.join(options.projectDir, 'blobs'));
    const sizes = new Map<string, { size: number; mtimeMs: number }>();
    for (const prefix of await readdir(blobs.dir).catch(() => [] as string[])) {
      for (const name of await readdir(path.join(blobs.dir, prefix)).catch(() => [] as string[])) {
        if (name.endsWith('.tmp')) continue;
        const stats = await stat(path.join(blobs.dir, prefix, name)).catch(() => undefined);
        if (stats) sizes.set(name, { size: stats.size, mtimeMs: stats.mtimeMs });
      }
    }
    allTurns.sort((a, b) => a.at.localeCompare(b.at));
    const prunedTurns: string[] = [];
    const referenced = (): Set<string> => {
      const set = new Set(always);
      for (const refs of allTurns) for (const hash of refs.hashes) set.add(hash);
      return set;
    };
    let live = referenced();
    const liveBytes = (): number => [...live].reduce((sum, hash) => sum + (sizes.get(hash)?.size ?? 0), 0);
    if (options.maxStoreBytes !== undefined) {
      const toPrune = new Map<string, string[]>();
      while (allTurns.length > 0 && liveBytes() > options.maxStoreBytes) {
        const oldest = allTurns.shift()!;
        toPrune.set(oldest.session, [...(toPrune.get(oldest.session) ?? []), oldest.turn]);
        prunedTurns.push(`${oldest.session}/${oldest.turn}`);
        live = referenced();
      }
      for (const [session, turns] of toPrune) {
        await journals.get(session)!.append({ type: 'prune', turns, at: now().toISOString() });
      }
    }
    const report: GcReport = { deletedBlobs: 0, freedBytes: 0, keptBlobs: 0, storeBytes: 0, prunedTurns };
    const cutoff = now().getTime() - graceMs;
    for (const [hash, info] of sizes) {
      if (!live.has(hash) && info.mtimeMs <= cutoff) {
        await blobs.remove(hash);
        report.deletedBlobs += 1;
        report.freedBytes += info.size;
      } else {
        report.keptBlobs += 1;
        report.storeBytes += info.size;
      }
    }
    return report;
  } finally {
    await lock.release();
  }
}

/** Deletes a session's journal and state; run `collectGarbage` afterwards to free its blobs. */
export async function deleteSessionData(projectDir: string, sessionId: string): Promise<void> {
  await rm(path.join(projectDir, 'sessions', sessionId), { recursive: true, force: true });
}
