import { type FSWatcher, watch } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** What changed since the last {@link TreeWatcher.sync}. */
export interface WatchResult {
  /** False when events may have been lost: the caller must do a full scan. */
  reliable: boolean;
  /** Root-relative paths that had events. */
  dirty: Set<string>;
}

/** More events than this between two syncs may mean the kernel queue overflowed. */
const MAX_EVENTS_BETWEEN_SYNCS = 8000;
const SYNC_TIMEOUT_MS = 2000;

/**
 * Watches every covered directory of a tree with one inotify watch each (Linux), so that a scan
 * after a bash call only has to stat the paths that had events: the cost of a call grows with the
 * files it changed, not with the tree. `sync()` writes a sentinel file in a watched directory of
 * safeturn's home and waits for its event: libuv reads one inotify queue per loop, in order, so
 * every event of the command has been seen by then. Any doubt (a watch that fails, a lost sentinel,
 * a flood of events) makes `sync()` report `reliable: false` and the caller scans fully.
 */
export class TreeWatcher {
  readonly #root: string;
  readonly #sentinelDir: string;
  readonly #watchers = new Map<string, FSWatcher>();
  #dirty = new Set<string>();
  #events = 0;
  #broken = false;
  #sentinel: FSWatcher | undefined;
  #counter = 0;
  #waiting: { name: string; resolve: () => void } | undefined;

  private constructor(root: string, sentinelDir: string) {
    this.#root = root;
    this.#sentinelDir = sentinelDir;
  }

  /** Starts watching `directories` (root-relative; `''` is the root). Returns undefined where watching is not supported. */
  static async start(
    root: string,
    sentinelDir: string,
    directories: Iterable<string>,
  ): Promise<TreeWatcher | undefined> {
    if (process.platform !== 'linux') return undefined;
    await mkdir(sentinelDir, { recursive: true });
    const watcher = new TreeWatcher(root, sentinelDir);
    try {
      watcher.#sentinel = watch(sentinelDir, { persistent: false }, (_type, name) => {
        if (watcher.#waiting && name === watcher.#waiting.name) watcher.#waiting.resolve();
      });
      watcher.#sentinel.on('error', () => {
        watcher.#broken = true;
      });
    } catch {
      return undefined;
    }
    watcher.add('');
    for (const directory of directories) watcher.add(directory);
    if (watcher.#broken) {
      watcher.close();
      return undefined;
    }
    return watcher;
  }

  /** Watches one more directory (root-relative). A failure marks the watcher unreliable. */
  add(relativeDir: string): void {
    if (this.#watchers.has(relativeDir) || this.#broken) return;
    try {
      const handle = watch(
        relativeDir === '' ? this.#root : path.join(this.#root, relativeDir),
        { persistent: false },
        (_type, name) => {
          this.#events += 1;
          if (name === null || name === undefined) this.#dirty.add(relativeDir === '' ? '.' : relativeDir);
          else this.#dirty.add(relativeDir === '' ? String(name) : `${relativeDir}/${String(name)}`);
        },
      );
      handle.on('error', () => {
        // The directory went away (or the watch broke): the parent's event covers a removal; a
        // broken watch on a live directory cannot be told apart, so trust nothing.
        this.#dirty.add(relativeDir === '' ? '.' : relativeDir);
        this.#watchers.get(relativeDir)?.close();
        this.#watchers.delete(relativeDir);
      });
      this.#watchers.set(relativeDir, handle);
    } catch {
      this.#broken = true;
    }
  }

  /** Stops watching a directory and everything under it. */
  removeSubtree(relativeDir: string): void {
    const prefix = `${relativeDir}/`;
    for (const [key, handle] of this.#watchers) {
      if (key === relativeDir || key.startsWith(prefix)) {
        handle.close();
        this.#watchers.delete(key);
      }
    }
  }

  /** True when the directory is watched. */
  watches(relativeDir: string): boolean {
    return this.#watchers.has(relativeDir);
  }

  /** Waits until every event queued so far has been delivered, then hands over the dirty set. */
  async sync(): Promise<WatchResult> {
    if (!this.#broken) {
      this.#counter += 1;
      const name = `sync-${process.pid}-${this.#counter}`;
      const seen = new Promise<void>((resolve) => {
        this.#waiting = { name, resolve };
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), SYNC_TIMEOUT_MS);
      });
      await writeFile(path.join(this.#sentinelDir, name), '');
      const outcome = await Promise.race([seen, timeout]);
      clearTimeout(timer);
      this.#waiting = undefined;
      await rm(path.join(this.#sentinelDir, name), { force: true });
      if (outcome === 'timeout') this.#broken = true;
    }
    const reliable = !this.#broken && this.#events <= MAX_EVENTS_BETWEEN_SYNCS && !this.#dirty.has('.');
    const dirty = this.#dirty;
    this.#dirty = new Set();
    this.#events = 0;
    return { reliable, dirty };
  }

  /** True once the watcher can no longer be trusted (then close it and start a new one after a full scan). */
  get broken(): boolean {
    return this.#broken;
  }

  /** Closes every watch. */
  close(): void {
    for (const handle of this.#watchers.values()) handle.close();
    this.#watchers.clear();
    this.#sentinel?.close();
    this.#sentinel = undefined;
  }
}
