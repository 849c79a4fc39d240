import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { sha256 } from '../../core/hash.js';
import { mapConcurrent } from '../../core/map-concurrent.js';
import type { BlobStore } from '../blob-store.js';
import type { CheckpointStore } from '../checkpoint-store.js';
import type { FileState } from '../file-state.js';
import type { CoverageNote } from './coverage.js';
import { type CachedStat, loadStatCache, type StatCache, saveStatCache, statCachePath } from './stat-cache.js';
import { type ScanEntry, scanTree, type TreeScan } from './scan-tree.js';

/** Options of {@link BashStaging}. */
export interface BashStagingOptions {
  projectDir: string;
  workspace: string;
  blobs: BlobStore;
  sizeCapBytes: number;
  /** Directory names never scanned. @default DEFAULT_SKIP_DIRECTORIES */
  skipDirectories?: readonly string[];
}

/** The workspace as staged before a bash call. */
export interface StagedTree {
  root: string;
  scan: TreeScan;
  /** Pre-image of every covered path; file bytes are in the blob store. */
  states: Map<string, FileState>;
}

const HASH_CONCURRENCY = 16;
/** Treat mtimes this close to the cache's own timestamp as racy (coarse file system clocks). */
const RACY_SLOP_NS = 5_000_000n;

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

function sameStat(entry: ScanEntry, cached: CachedStat | undefined): boolean {
  return cached !== undefined && cached[0] === entry.mtimeNs.toString() && cached[1] === entry.size && cached[2] === entry.ino && cached[3] === entry.mode;
}

/**
 * Bash coverage: stage the workspace before a shell command (a stat scan; only files whose stat
 * changed since the last scan are read, hashed and stored), then scan again after it and record
 * every created, modified and deleted file as a capture of the current turn. Racy-clean files
 * (mtime not older than the cache's timestamp) are re-hashed, as git does.
 */
export class BashStaging {
  readonly #options: BashStagingOptions;
  readonly #caches = new Map<string, StatCache>();

  constructor(options: BashStagingOptions) {
    this.#options = options;
  }

  async #cache(root: string): Promise<StatCache> {
    let cache = this.#caches.get(root);
    if (!cache) {
      cache = await loadStatCache(statCachePath(this.#options.projectDir, root, this.#options.workspace), root);
      this.#caches.set(root, cache);
    }
    return cache;
  }

  async #ignore(root: string): Promise<Ignore | undefined> {
    const text = await readFile(path.join(root, '.safeturnignore'), 'utf8').catch(() => undefined);
    return text === undefined ? undefined : ignore().add(text);
  }

  async #scan(root: string): Promise<TreeScan> {
    const rules = await this.#ignore(root);
    return scanTree({ root, ...(this.#options.skipDirectories ? { skipDirectories: this.#options.skipDirectories } : {}), ...(rules ? { ignore: rules } : {}) });
  }

  /** Reads, hashes and stores one file; returns its state and cache entry. */
  async #hash(root: string, relative: string, entry: ScanEntry): Promise<{ state: FileState; cached: CachedStat }> {
    const stat = [entry.mtimeNs.toString(), entry.size, entry.ino, entry.mode] as const;
    if (entry.size > this.#options.sizeCapBytes) {
      return { state: { kind: 'skipped', reason: 'too-large', size: entry.size }, cached: [...stat, null] };
    }
    let content: Buffer;
    try {
      content = await readFile(path.join(root, relative));
    } catch {
      return { state: { kind: 'skipped', reason: 'unreadable', size: entry.size }, cached: [...stat, null] };
    }
    const hash = sha256(content);
    await this.#options.blobs.put(hash, content);
    return { state: { kind: 'file', sha256: hash, size: content.byteLength, mode: entry.mode }, cached: [...stat, hash] };
  }

  #stateFromCache(entry: ScanEntry, cached: CachedStat): FileState {
    const hash = cached[4];
    if (hash === null) {
      return { kind: 'skipped', reason: entry.size > this.#options.sizeCapBytes ? 'too-large' : 'unreadable', size: entry.size };
    }
    return { kind: 'file', sha256: hash, size: entry.size, mode: entry.mode };
  }

  /**
   * Before a bash call: makes sure the pre-image of every covered file is in the blob store.
   * Cost: one stat per entry, plus a read and hash of each file whose stat changed since the last scan.
   */
  async stage(root: string): Promise<StagedTree> {
    const cache = await this.#cache(root);
    const startedNs = nowNs();
    const scan = await this.#scan(root);
    const states = new Map<string, FileState>();
    const toHash: [string, ScanEntry][] = [];
    for (const [relative, entry] of scan.entries) {
      if (entry.kind === 'symlink') {
        states.set(relative, { kind: 'symlink', target: entry.target ?? '' });
        continue;
      }
      const cached = cache.entries.get(relative);
      const racy = entry.mtimeNs + RACY_SLOP_NS >= cache.takenAtNs;
      if (cached && sameStat(entry, cached) && !racy) states.set(relative, this.#stateFromCache(entry, cached));
      else toHash.push([relative, entry]);
    }
    let dirty = toHash.length > 0 || cache.entries.size !== scan.entries.size;
    await mapConcurrent(toHash, HASH_CONCURRENCY, async ([relative, entry]) => {
      const { state, cached } = await this.#hash(root, relative, entry);
      states.set(relative, state);
      cache.entries.set(relative, cached);
    });
    for (const key of cache.entries.keys()) {
      if (!scan.entries.has(key) || scan.entries.get(key)?.kind === 'symlink') {
        cache.entries.delete(key);
        dirty = true;
      }
    }
    if (dirty || cache.takenAtNs === 0n) {
      cache.takenAtNs = startedNs;
      await saveStatCache(statCachePath(this.#options.projectDir, root, this.#options.workspace), cache);
    }
    return { root, scan, states };
  }

  /**
   * After a bash call: rescans, diffs against the staged tree, records each change as a capture
   * (first capture in the turn wins) with its post state, records created directories, and returns
   * the coverage note. Cost grows with the number of changed files, not with their size on the
   * unchanged side.
   */
  async finish(staged: StagedTree, checkpoints: CheckpointStore, turn: string): Promise<CoverageNote> {
    const { root } = staged;
    const cache = await this.#cache(root);
    const startedNs = nowNs();
    const after = await this.#scan(root);
    const note: CoverageNote = { turn, created: [], modified: [], deleted: [], createdDirectories: [], uncovered: [] };
    const changed: [string, ScanEntry][] = [];
    for (const [relative, entry] of after.entries) {
      const before = staged.scan.entries.get(relative);
      if (!before) {
        changed.push([relative, entry]);
        continue;
      }
      const same =
        before.kind === entry.kind &&
        before.mtimeNs === entry.mtimeNs &&
        before.size === entry.size &&
        before.ino === entry.ino &&
        before.mode === entry.mode &&
        before.target === entry.target &&
        entry.mtimeNs + RACY_SLOP_NS < startedNs;
      if (!same) changed.push([relative, entry]);
    }
    const posts = new Map<string, FileState>();
    await mapConcurrent(changed, HASH_CONCURRENCY, async ([relative, entry]) => {
      if (entry.kind === 'symlink') {
        posts.set(relative, { kind: 'symlink', target: entry.target ?? '' });
        cache.entries.delete(relative);
        return;
      }
      const { state, cached } = await this.#hash(root, relative, entry);
      posts.set(relative, state);
      cache.entries.set(relative, cached);
    });
    const record = async (relative: string, pre: FileState, post: FileState) => {
      await checkpoints.captureKnown(root, relative, pre);
      await checkpoints.recordPost(root, relative, post);
      if (pre.kind === 'skipped' || post.kind === 'skipped') {
        const reason = (pre.kind === 'skipped' ? pre.reason : post.kind === 'skipped' ? post.reason : 'unreadable') as 'too-large' | 'unreadable';
        note.uncovered.push({ path: relative, reason, detail: reason === 'too-large' ? `over the ${this.#options.sizeCapBytes}-byte size cap; its earlier content was not stored` : 'could not be read' });
      }
    };
    for (const [relative] of changed.sort(([a], [b]) => a.localeCompare(b))) {
      const pre = staged.states.get(relative) ?? { kind: 'absent' as const };
      const post = posts.get(relative)!;
      if (pre.kind !== 'absent' && pre.kind !== 'skipped' && post.kind !== 'skipped' && sameContent(pre, post)) continue;
      await record(relative, pre, post);
      (pre.kind === 'absent' ? note.created : note.modified).push(relative);
    }
    for (const relative of [...staged.scan.entries.keys()].sort()) {
      if (after.entries.has(relative)) continue;
      await record(relative, staged.states.get(relative) ?? { kind: 'absent' }, { kind: 'absent' });
      note.deleted.push(relative);
      cache.entries.delete(relative);
    }
    for (const directory of [...after.directories].sort()) {
      if (staged.scan.directories.has(directory)) continue;
      await checkpoints.recordDirectory(root, directory);
      note.createdDirectories.push(directory);
    }
    note.uncovered.push(...uncoveredChanges(staged.scan, after));
    cache.takenAtNs = startedNs;
    await saveStatCache(statCachePath(this.#options.projectDir, root, this.#options.workspace), cache);
    return note;
  }
}

function sameContent(a: FileState, b: FileState): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.sha256 === b.sha256 && a.mode === b.mode;
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.target === b.target;
  return false;
}

/** Skipped directories that appeared, disappeared or changed shallowly; new bad names. */
function uncoveredChanges(before: TreeScan, after: TreeScan): CoverageNote['uncovered'] {
  const result: CoverageNote['uncovered'] = [];
  const beforeByPath = new Map(before.uncovered.map((item) => [item.path, item]));
  const afterByPath = new Map(after.uncovered.map((item) => [item.path, item]));
  for (const [relative, item] of afterByPath) {
    const earlier = beforeByPath.get(relative);
    if (item.reason === 'skipped-directory') {
      if (!earlier) result.push({ path: relative, reason: 'skipped-directory', detail: 'created by the command inside a directory the scan skips; not removed by rewind' });
      else if (earlier.fingerprint !== item.fingerprint) result.push({ path: relative, reason: 'skipped-directory', detail: 'changed inside a directory the scan skips; those changes are not undone by rewind' });
    } else if (!earlier) {
      result.push({ path: relative, reason: item.reason, detail: item.reason === 'invalid-name' ? 'file name is not valid UTF-8' : item.reason === 'safeturnignore' ? 'matched by .safeturnignore' : 'could not be read' });
    }
  }
  for (const [relative, item] of beforeByPath) {
    if (!afterByPath.has(relative) && (item.reason === 'skipped-directory' || item.reason === 'safeturnignore')) {
      if (!after.entries.has(relative) && !after.directories.has(relative)) {
        result.push({ path: relative, reason: item.reason, detail: 'deleted by the command; its content was never captured, rewind cannot bring it back' });
      }
    }
  }
  return result.sort((a, b) => a.path.localeCompare(b.path));
}
