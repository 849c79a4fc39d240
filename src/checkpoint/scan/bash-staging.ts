import { type BigIntStats, lstatSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { sha256, sha256File } from '../../core/hash.js';
import { mapConcurrent } from '../../core/map-concurrent.js';
import { isSameOrInside } from '../../core/paths.js';
import type { BlobStore } from '../blob-store.js';
import type { CheckpointStore } from '../checkpoint-store.js';
import type { FileState } from '../file-state.js';
import type { CoverageNote } from './coverage.js';
import {
  DEFAULT_SKIP_DIRECTORIES,
  rawFingerprint,
  type ScanEntry,
  scanTree,
  shallowFingerprint,
  type UncoveredPath,
} from './scan-tree.js';
import {
  type CachedStat,
  loadStatCache,
  type StatCache,
  saveStatCache,
  statCachePath,
} from './stat-cache.js';
import { TreeWatcher } from './tree-watcher.js';

/** Options of {@link BashStaging}. */
export interface BashStagingOptions {
  projectDir: string;
  workspace: string;
  blobs: BlobStore;
  sizeCapBytes: number;
  /** Directory names never scanned. @default DEFAULT_SKIP_DIRECTORIES */
  skipDirectories?: readonly string[];
  /** Keep inotify watches between calls so a call costs O(changed paths) (Linux). @default true */
  watch?: boolean;
  /** safeturn's home (realpath'd): never scanned, even when the workspace contains it. */
  home?: string;
  /** Progress of a full scan: entries seen so far (every 5,000), for a progress line on a terminal. */
  onScanProgress?: (entries: number) => void;
}

/** The workspace as staged before a bash call. */
export interface StagedTree {
  root: string;
  /** How many files had to be read and hashed (changed since the last scan, or racy). */
  hashedFiles: number;
  /** True when this stage walked the whole tree (first call, or the watcher was not reliable). */
  fullScan: boolean;
  /** Every covered path's entry right after staging. */
  coveredPaths: number;
}

/** What one root looks like to the staging layer, kept between calls. */
interface TreeModel {
  root: string;
  cache: StatCache;
  directories: Set<string>;
  uncovered: UncoveredPath[];
  ignore: Ignore | undefined;
  ignoreText: string | undefined;
  watcher: TreeWatcher | undefined;
  dirty: boolean;
  /** True once a full scan filled `directories`. */
  scanned: boolean;
  /**
   * Files with more than one hard link: they can change through a path no watch sees, so every
   * update stats them again.
   */
  multiLinked: Set<string>;
  /** The turn of the last stage (a new turn starts with a full scan). */
  lastTurn?: string;
}

const HASH_CONCURRENCY = 16;
/** Treat mtimes this close to the cache's own timestamp as racy (coarse file system clocks). */
const RACY_SLOP_NS = 5_000_000n;

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

function entryOf(stats: BigIntStats, absolute: string): ScanEntry | undefined {
  if (stats.isSymbolicLink()) {
    try {
      return {
        kind: 'symlink',
        mtimeNs: stats.mtimeNs,
        size: Number(stats.size),
        ino: Number(stats.ino),
        mode: Number(stats.mode & 0o7777n),
        target: readlinkSync(absolute),
      };
    } catch {
      return undefined;
    }
  }
  if (!stats.isFile()) return undefined;
  return {
    kind: 'file',
    mtimeNs: stats.mtimeNs,
    size: Number(stats.size),
    ino: Number(stats.ino),
    mode: Number(stats.mode & 0o7777n),
    links: Number(stats.nlink),
  };
}

function sameStat(entry: ScanEntry, cached: CachedStat | undefined): boolean {
  if (cached === undefined) return false;
  if (entry.kind === 'symlink')
    return cached.length === 6 && cached[5] === entry.target && cached[0] === entry.mtimeNs.toString();
  return (
    cached.length === 5 &&
    cached[0] === entry.mtimeNs.toString() &&
    cached[1] === entry.size &&
    cached[2] === entry.ino &&
    cached[3] === entry.mode
  );
}

/**
 * Bash coverage: stage the workspace before a shell command, then diff after it and record every
 * created, modified and deleted file as a capture of the current turn (first capture wins).
 *
 * The first call walks the tree (one stat per entry; only files whose stat changed since the
 * stat cache was written are read, hashed and stored). After that, on Linux, inotify watches on
 * every covered directory tell which paths had events, so a call costs O(changed paths); any doubt
 * about the watches falls back to a full stat scan. Racy-clean files (mtime not older than the
 * cache's timestamp) are re-hashed, as git does.
 */
export class BashStaging {
  readonly #options: BashStagingOptions;
  readonly #models = new Map<string, TreeModel>();

  constructor(options: BashStagingOptions) {
    this.#options = options;
  }

  #cachePath(root: string): string {
    return statCachePath(this.#options.projectDir, root, this.#options.workspace);
  }

  #exclude(): { exclude?: readonly string[]; onProgress?: (entries: number) => void } {
    return {
      ...(this.#options.home ? { exclude: [this.#options.home] } : {}),
      ...(this.#options.onScanProgress ? { onProgress: this.#options.onScanProgress } : {}),
    };
  }

  #skip(): readonly string[] {
    return this.#options.skipDirectories ?? DEFAULT_SKIP_DIRECTORIES;
  }

  async #readIgnore(root: string): Promise<string | undefined> {
    return readFile(path.join(root, '.safeturnignore'), 'utf8').catch(() => undefined);
  }

  /** Reads, hashes and stores one file; returns its state and cache entry. */
  async #hash(
    root: string,
    relative: string,
    entry: ScanEntry,
  ): Promise<{ state: FileState; cached: CachedStat }> {
    const stat = [entry.mtimeNs.toString(), entry.size, entry.ino, entry.mode] as const;
    if (entry.kind === 'symlink')
      return {
        state: { kind: 'symlink', target: entry.target ?? '' },
        cached: [...stat, null, entry.target ?? ''],
      };
    if (entry.size > this.#options.sizeCapBytes) {
      // Not stored (the cache says so with null), but hashed: a rewind must recognise the
      // agent's own output to delete or replace it without a false conflict.
      try {
        const hash = await sha256File(path.join(root, relative));
        return {
          state: { kind: 'file', sha256: hash, size: entry.size, mode: entry.mode },
          cached: [...stat, null],
        };
      } catch {
        return {
          state: { kind: 'skipped', reason: 'unreadable', size: entry.size },
          cached: [...stat, null],
        };
      }
    }
    let content: Buffer;
    try {
      content = await readFile(path.join(root, relative));
    } catch {
      return { state: { kind: 'skipped', reason: 'unreadable', size: entry.size }, cached: [...stat, null] };
    }
    const hash = sha256(content);
    await this.#options.blobs.put(hash, content);
    return {
      state: { kind: 'file', sha256: hash, size: content.byteLength, mode: entry.mode },
      cached: [...stat, hash],
    };
  }

  /** The recorded state of a cached entry (what a rewind would put back). */
  #stateOf(cached: CachedStat | undefined): FileState {
    if (!cached) return { kind: 'absent' };
    if (cached.length === 6) return { kind: 'symlink', target: cached[5] };
    const hash = cached[4];
    if (hash === null)
      return {
        kind: 'skipped',
        reason: cached[1] > this.#options.sizeCapBytes ? 'too-large' : 'unreadable',
        size: cached[1],
      };
    return { kind: 'file', sha256: hash, size: cached[1], mode: cached[3] };
  }

  /**
   * Brings the model of `root` up to date and returns every path whose state changed since the
   * model was last updated, with its state before and after. Reads only the changed files.
   */
  async #update(
    root: string,
    forceFull = false,
  ): Promise<{
    model: TreeModel;
    changes: Map<string, { before: FileState; after: FileState }>;
    createdDirectories: string[];
    removedDirectories: string[];
    /** Paths the scan does not cover (.safeturnignore) that had events. */
    touchedUncovered: UncoveredPath[];
    hashed: number;
    full: boolean;
  }> {
    let model = this.#models.get(root);
    const ignoreText = await this.#readIgnore(root);
    const startedNs = nowNs();
    let watchResult: Awaited<ReturnType<TreeWatcher['sync']>> | undefined;
    if (model?.watcher && ignoreText === model.ignoreText && !forceFull) {
      watchResult = await model.watcher.sync();
      if (!watchResult.reliable) {
        model.watcher.close();
        model.watcher = undefined;
        watchResult = undefined;
      }
    }
    if (!model) {
      model = {
        root,
        cache: await loadStatCache(this.#cachePath(root), root),
        directories: new Set(),
        uncovered: [],
        ignore: undefined,
        ignoreText: undefined,
        watcher: undefined,
        dirty: false,
        scanned: false,
        multiLinked: new Set(),
      };
      this.#models.set(root, model);
    }
    model.ignoreText = ignoreText;
    model.ignore = ignoreText === undefined ? undefined : ignore().add(ignoreText);
    // Candidate paths whose stat must be compared with the cache, with their fresh entries.
    const candidates = new Map<string, ScanEntry | undefined>();
    const createdDirectories: string[] = [];
    const removedDirectories: string[] = [];
    const touchedUncovered: UncoveredPath[] = [];
    const full = watchResult === undefined;
    const racyBefore = model.cache.takenAtNs;
    if (full) {
      const scan = scanTree({
        root,
        skipDirectories: this.#skip(),
        ...this.#exclude(),
        ...(model.ignore ? { ignore: model.ignore } : {}),
      });
      for (const [relative, entry] of scan.entries) {
        const cached = model.cache.entries.get(relative);
        if (!sameStat(entry, cached) || entry.mtimeNs + RACY_SLOP_NS >= racyBefore)
          candidates.set(relative, entry);
      }
      for (const relative of model.cache.entries.keys())
        if (!scan.entries.has(relative)) candidates.set(relative, undefined);
      if (model.scanned) {
        for (const directory of scan.directories)
          if (!model.directories.has(directory)) createdDirectories.push(directory);
        for (const directory of model.directories)
          if (!scan.directories.has(directory)) removedDirectories.push(directory);
      }
      model.scanned = true;
      model.directories = scan.directories;
      model.uncovered = scan.uncovered;
      model.multiLinked = new Set(
        [...scan.entries].filter(([, entry]) => (entry.links ?? 1) > 1).map(([relative]) => relative),
      );
      if (this.#options.watch !== false) {
        model.watcher?.close();
        model.watcher = await TreeWatcher.start(
          root,
          path.join(this.#options.projectDir, 'watch'),
          scan.directories,
        );
      }
    } else {
      this.#processEvents(
        model,
        watchResult!.dirty,
        candidates,
        createdDirectories,
        removedDirectories,
        touchedUncovered,
      );
      model.uncovered = model.uncovered.map((item) =>
        item.reason === 'skipped-directory'
          ? { ...item, fingerprint: shallowFingerprint(path.join(root, item.path)) }
          : item,
      );
      for (const relative of model.multiLinked) {
        if (candidates.has(relative)) continue;
        const absolute = path.join(root, relative);
        let stats: BigIntStats | undefined;
        try {
          stats = lstatSync(absolute, { bigint: true });
        } catch {
          stats = undefined;
        }
        candidates.set(relative, stats ? entryOf(stats, absolute) : undefined);
      }
    }
    const changes = new Map<string, { before: FileState; after: FileState }>();
    let hashed = 0;
    await mapConcurrent([...candidates], HASH_CONCURRENCY, async ([relative, entry]) => {
      const cached = model.cache.entries.get(relative);
      const before = this.#stateOf(cached);
      if (!entry) {
        if (cached) {
          model.cache.entries.delete(relative);
          changes.set(relative, { before, after: { kind: 'absent' } });
        }
        return;
      }
      if ((entry.links ?? 1) > 1) model.multiLinked.add(relative);
      else model.multiLinked.delete(relative);
      if (sameStat(entry, cached) && entry.mtimeNs + RACY_SLOP_NS < racyBefore) return;
      hashed += 1;
      const { state, cached: fresh } = await this.#hash(root, relative, entry);
      model.cache.entries.set(relative, fresh);
      if (!cached || !sameRecorded(before, state)) changes.set(relative, { before, after: state });
    });
    model.cache.takenAtNs = startedNs;
    model.dirty = model.dirty || candidates.size > 0 || full;
    return {
      model,
      changes,
      createdDirectories: createdDirectories.sort(),
      removedDirectories,
      touchedUncovered,
      hashed,
      full,
    };
  }

  /** Turns watcher events into candidate paths; scans new directories, forgets removed ones. */
  #processEvents(
    model: TreeModel,
    dirty: Set<string>,
    candidates: Map<string, ScanEntry | undefined>,
    createdDirectories: string[],
    removedDirectories: string[],
    touchedUncovered: UncoveredPath[],
  ): void {
    const skip = new Set([...this.#skip(), '.git']);
    const uncoveredPaths = new Set(model.uncovered.map((item) => item.path));
    for (const relative of [...dirty].sort()) {
      const name = path.posix.basename(relative);
      const absolute = path.join(model.root, relative);
      if (this.#options.home && isSameOrInside(this.#options.home, absolute)) continue;
      let stats: BigIntStats | undefined;
      try {
        stats = lstatSync(absolute, { bigint: true });
      } catch {
        stats = undefined;
      }
      if (name.includes('\uFFFD') || name.includes('\\')) {
        upsertUncovered(model, {
          path: relative,
          reason: 'invalid-name',
          fingerprint: rawFingerprint(path.dirname(absolute), name),
        });
        continue;
      }
      if (stats && !stats.isDirectory() && !stats.isFile() && !stats.isSymbolicLink()) {
        upsertUncovered(model, {
          path: relative,
          reason: 'special-file',
          fingerprint: `${stats.mtimeNs}:${stats.size}:${stats.ino}`,
        });
        continue;
      }
      if (!stats && uncoveredPaths.has(relative) && !model.directories.has(relative)) {
        model.uncovered = model.uncovered.filter((item) => item.path !== relative);
        continue;
      }
      if (stats?.isDirectory()) {
        if (model.cache.entries.has(relative)) candidates.set(relative, undefined);
        if (model.directories.has(relative) || uncoveredPaths.has(relative)) continue;
        if (skip.has(name) || model.ignore?.ignores(`${relative}/`)) {
          model.uncovered.push({
            path: relative,
            reason: skip.has(name) ? 'skipped-directory' : 'safeturnignore',
            fingerprint: '',
          });
          continue;
        }
        const sub = scanTree({
          root: model.root,
          start: relative,
          skipDirectories: this.#skip(),
          ...this.#exclude(),
          ...(model.ignore ? { ignore: model.ignore } : {}),
        });
        for (const directory of sub.directories) {
          model.directories.add(directory);
          createdDirectories.push(directory);
          model.watcher?.add(directory);
        }
        for (const [path_, entry] of sub.entries) candidates.set(path_, entry);
        model.uncovered.push(...sub.uncovered);
        continue;
      }
      if (model.directories.has(relative)) {
        // A directory that went away (or was replaced by a file): everything under it is gone.
        const prefix = `${relative}/`;
        for (const directory of [...model.directories]) {
          if (directory === relative || directory.startsWith(prefix)) {
            model.directories.delete(directory);
            removedDirectories.push(directory);
          }
        }
        model.watcher?.removeSubtree(relative);
        for (const key of model.cache.entries.keys())
          if (key.startsWith(prefix)) candidates.set(key, undefined);
      }
      const parent = path.posix.dirname(relative);
      if (parent !== '.' && !model.directories.has(parent)) continue;
      if (model.ignore?.ignores(relative)) {
        touchedUncovered.push({ path: relative, reason: 'safeturnignore' });
        continue;
      }
      candidates.set(relative, stats ? entryOf(stats, absolute) : undefined);
    }
  }

  /**
   * Before a bash call: makes sure the pre-image of every covered file is in the blob store.
   * The first call walks the tree; later ones (with watches) only look at paths that had events.
   */
  async stage(root: string, options: { turn?: string } = {}): Promise<StagedTree> {
    const model = this.#models.get(root);
    // The first call of each turn walks the whole tree: what no watch can see (a file changed
    // through a hard link created in a skipped directory) is caught at least once per turn.
    const forceFull = options.turn !== undefined && model !== undefined && model.lastTurn !== options.turn;
    if (model && options.turn !== undefined) model.lastTurn = options.turn;
    const { model: updated, hashed, full } = await this.#update(root, forceFull);
    if (options.turn !== undefined) updated.lastTurn = options.turn;
    await this.#save(updated);
    return { root, hashedFiles: hashed, fullScan: full, coveredPaths: updated.cache.entries.size };
  }

  async #save(model: TreeModel): Promise<void> {
    if (!model.dirty) return;
    await saveStatCache(this.#cachePath(model.root), model.cache);
    model.dirty = false;
  }

  /**
   * After a bash call: finds what changed since `stage`, records each change as a capture of the
   * turn (the pre-image staged before the call; first capture wins) with its post state, records
   * created directories, and returns the coverage note.
   */
  async finish(staged: StagedTree, checkpoints: CheckpointStore, turn: string): Promise<CoverageNote> {
    const uncoveredBefore = new Map(
      (this.#models.get(staged.root)?.uncovered ?? []).map((item) => [item.path, item]),
    );
    const { model, changes, createdDirectories, touchedUncovered } = await this.#update(staged.root);
    const note: CoverageNote = {
      turn,
      created: [],
      modified: [],
      deleted: [],
      createdDirectories: [],
      uncovered: [],
    };
    for (const [relative, { before, after }] of [...changes].sort(([a], [b]) => a.localeCompare(b))) {
      await checkpoints.captureKnown(staged.root, relative, before);
      await checkpoints.recordPost(staged.root, relative, after);
      if (before.kind === 'absent') note.created.push(relative);
      else if (after.kind === 'absent') note.deleted.push(relative);
      else note.modified.push(relative);
      const skipped = before.kind === 'skipped' ? before : after.kind === 'skipped' ? after : undefined;
      if (skipped) {
        note.uncovered.push({
          path: relative,
          reason: skipped.reason === 'too-large' ? 'too-large' : 'unreadable',
          detail:
            skipped.reason === 'too-large'
              ? `over the ${this.#options.sizeCapBytes}-byte size cap; its earlier content was not stored`
              : 'could not be read',
        });
      }
    }
    for (const directory of createdDirectories) {
      await checkpoints.recordDirectory(staged.root, directory);
      note.createdDirectories.push(directory);
    }
    note.uncovered.push(...uncoveredChanges(uncoveredBefore, model.uncovered, model));
    for (const item of touchedUncovered) {
      if (!note.uncovered.some((existing) => existing.path === item.path)) {
        note.uncovered.push({
          path: item.path,
          reason: 'safeturnignore',
          detail: 'matched by .safeturnignore; its changes are not captured',
        });
      }
    }
    note.uncovered.sort((a, b) => a.path.localeCompare(b.path));
    await this.#save(model);
    return note;
  }

  /** Closes the inotify watches. */
  close(): void {
    for (const model of this.#models.values()) {
      model.watcher?.close();
      model.watcher = undefined;
    }
  }
}

/** Replaces (never mutates: the note compares against the old objects) an uncovered entry. */
function upsertUncovered(model: TreeModel, item: UncoveredPath): void {
  model.uncovered = [...model.uncovered.filter((existing) => existing.path !== item.path), item];
}

function sameRecorded(a: FileState, b: FileState): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.sha256 === b.sha256 && a.mode === b.mode;
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.target === b.target;
  if (a.kind === 'skipped' && b.kind === 'skipped') return false;
  return a.kind === b.kind;
}

const UNCOVERED_DETAIL: Record<UncoveredPath['reason'], string> = {
  'skipped-directory': 'inside a directory the scan skips; not undone by rewind',
  safeturnignore: 'matched by .safeturnignore; not captured',
  'invalid-name': 'file name is not valid UTF-8; not captured',
  unreadable: 'could not be read; not captured',
  'special-file': 'a fifo, socket or device; never captured or removed by rewind',
};

/**
 * What the scan could not cover that appeared, disappeared or changed: skipped directories (by
 * the mtimes of their first levels), bad names and special files (by their own stat).
 */
function uncoveredChanges(
  before: Map<string, UncoveredPath>,
  after: UncoveredPath[],
  model: TreeModel,
): CoverageNote['uncovered'] {
  const result: CoverageNote['uncovered'] = [];
  const afterByPath = new Map(after.map((item) => [item.path, item]));
  for (const [relative, item] of afterByPath) {
    const earlier = before.get(relative);
    if (!earlier) {
      result.push({
        path: relative,
        reason: item.reason,
        detail: `created by the command: ${UNCOVERED_DETAIL[item.reason]}`,
      });
    } else if (earlier.fingerprint !== item.fingerprint) {
      result.push({
        path: relative,
        reason: item.reason,
        detail: `changed by the command: ${UNCOVERED_DETAIL[item.reason]}`,
      });
    }
  }
  for (const [relative, item] of before) {
    if (afterByPath.has(relative) || model.cache.entries.has(relative) || model.directories.has(relative))
      continue;
    result.push({
      path: relative,
      reason: item.reason,
      detail: `deleted by the command: its content was never captured, rewind cannot bring it back`,
    });
  }
  return result.sort((a, b) => a.path.localeCompare(b.path));
}
