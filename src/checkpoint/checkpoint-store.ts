import { randomBytes } from 'node:crypto';
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { IN_MEMORY_HASH_LIMIT } from '../core/hash.js';
import { mapConcurrent } from '../core/map-concurrent.js';
import { assertNotInHome, isSameOrInside, resolveRecordedPath } from '../core/paths.js';
import { PathError } from '../errors/path-error.js';
import { RewindConflictError } from '../errors/rewind-conflict-error.js';
import { UsageError } from '../errors/usage-error.js';
import { BlobStore } from './blob-store.js';
import { type FileState, observePath } from './file-state.js';
import type { Journal } from './journal.js';
import type { JournalRecord, RestoreEntry } from './journal-records.js';
import {
  applyPlan,
  planRestore,
  type RestoreItem,
  type RestoreReport,
  removeCreatedDirectories,
} from './restore.js';
import { pathKey, type TurnLog, type TurnState } from './turn-log.js';

/** Default size cap for one stored file: 8 MiB. */
export const DEFAULT_SIZE_CAP_BYTES = 8 * 1024 * 1024;

/** Options of a rewind or redo. */
export interface RestoreOptions {
  /** Overwrite files the user changed since the agent wrote them (rule 12). @default false */
  force?: boolean;
  /** Only report what would change; write nothing. @default false */
  dryRun?: boolean;
}

/** A rewind's outcome: the report plus which turns were undone. */
export interface RewindResult extends RestoreReport {
  /** Id of the rewind (what `redo()` undoes). Empty for a dry run. */
  rewindId: string;
  /** The turns undone, oldest first. */
  turns: string[];
  /**
   * False when some paths failed: the turns then stay rollback points, so rewinding again (after
   * fixing the cause) restores what is left; `redo()` still undoes what this rewind did.
   */
  complete: boolean;
}

/** What one capture recorded. */
export interface CaptureResult {
  path: string;
  pre: FileState;
  /** False when the path was already captured in this turn (first capture wins). */
  recorded: boolean;
}

/** Construction options of {@link CheckpointStore}. */
export interface CheckpointStoreOptions {
  workspace: string;
  projectDir: string;
  /** safeturn's home, realpath'd: never captured or restored, even when the workspace contains it. */
  home: string;
  sessionId: string;
  journal: Journal;
  log: TurnLog;
  sizeCapBytes: number;
  now: () => Date;
}

/**
 * Checkpoints of one session: captures pre-images into the shared blob store, records post
 * states and created directories, and restores (rewind, redo) per the rules of DESIGN.md.
 */
export class CheckpointStore {
  readonly blobs: BlobStore;
  readonly #options: CheckpointStoreOptions;

  constructor(options: CheckpointStoreOptions) {
    this.#options = options;
    this.blobs = new BlobStore(path.join(options.projectDir, 'blobs'));
  }

  get log(): TurnLog {
    return this.#options.log;
  }

  #activeTurn(): TurnState {
    const turn = this.#options.log.activeTurn;
    if (!turn) throw new UsageError('TURN_STATE', 'No turn is active: call session.beginTurn() first.');
    return turn;
  }

  async #append(...records: JournalRecord[]): Promise<void> {
    for (const record of records) this.#options.log.apply(record);
    await this.#options.journal.append(...records);
  }

  /**
   * Rule 4 for roots: a root read back from the journal must be the workspace or a worktree of
   * this project under `<home>/worktrees/<id>/`; a path must not be inside safeturn's home.
   * @throws PathError `PATH_OUTSIDE_WORKSPACE` / `PATH_INVALID`.
   */
  checkPath(root: string, absolute: string, display: string): void {
    const worktrees = path.join(this.#options.home, 'worktrees', path.basename(this.#options.projectDir));
    const rootAllowed =
      root === this.#options.workspace ||
      (isSameOrInside(worktrees, root) && root !== worktrees && path.dirname(root) === worktrees);
    if (!rootAllowed) {
      throw new PathError(
        'PATH_OUTSIDE_WORKSPACE',
        `Recorded root ${root} of ${display} is neither the workspace nor one of its worktrees; refused.`,
        {
          data: { path: display, root },
        },
      );
    }
    assertNotInHome(this.#options.home, root, absolute, display);
  }

  #rootField(root: string): { root?: string } {
    return root === this.#options.workspace ? {} : { root };
  }

  /**
   * Captures the pre-image of a path in the active turn, unless it was already captured in this
   * turn (rule 1). Stores regular files' bytes in the blob store; records symlinks as links,
   * missing paths as tombstones (with the parent directories that do not exist yet), and oversized
   * or unreadable files as skipped (rule 3).
   *
   * @param root - absolute root the path is relative to.
   * @param relative - checked root-relative POSIX path.
   */
  async capture(root: string, relative: string): Promise<CaptureResult> {
    const turn = this.#activeTurn();
    const key = pathKey(root, relative);
    const existing = turn.captures.get(key);
    if (existing) return { path: relative, pre: existing.pre, recorded: false };
    const absolute = await resolveRecordedPath(root, relative);
    this.checkPath(root, absolute, relative);
    const observed = await observePath(absolute, { sizeCapBytes: this.#options.sizeCapBytes });
    if (observed.state.kind === 'file' && observed.content)
      await this.blobs.put(observed.state.sha256, observed.content);
    const dirs = observed.state.kind === 'absent' ? await missingParents(root, relative) : [];
    if (turn.captures.has(key)) return { path: relative, pre: turn.captures.get(key)!.pre, recorded: false };
    await this.#append({
      type: 'capture',
      turn: turn.id,
      path: relative,
      ...this.#rootField(root),
      pre: observed.state,
      ...(dirs.length > 0 ? { dirs } : {}),
    });
    return { path: relative, pre: observed.state, recorded: true };
  }

  /**
   * Records a pre-image already known (bash staging read it before the call), unless the path was
   * captured earlier in this turn (first capture wins). A file state's bytes must be in the blob store.
   * @returns true when recorded.
   */
  async captureKnown(root: string, relative: string, pre: FileState): Promise<boolean> {
    const turn = this.#activeTurn();
    if (turn.captures.has(pathKey(root, relative))) return false;
    await this.#append({ type: 'capture', turn: turn.id, path: relative, ...this.#rootField(root), pre });
    return true;
  }

  /**
   * Records the state the agent left a path in (rule 12's evidence), after a write or a bash call.
   * @returns the recorded state.
   */
  async recordPost(root: string, relative: string, state?: FileState): Promise<FileState> {
    const turn = this.#activeTurn();
    const post =
      state ??
      (
        await observePath(await resolveRecordedPath(root, relative), {
          sizeCapBytes: IN_MEMORY_HASH_LIMIT,
          hashLarge: true,
        })
      ).state;
    await this.#append({ type: 'post', turn: turn.id, path: relative, ...this.#rootField(root), post });
    return post;
  }

  /** Records a directory created during the active turn (removed on rewind when empty). */
  async recordDirectory(root: string, relative: string): Promise<void> {
    const turn = this.#activeTurn();
    if (turn.directories.has(pathKey(root, relative))) return;
    await this.#append({ type: 'mkdir', turn: turn.id, path: relative, ...this.#rootField(root) });
  }

  /**
   * Rewinds to the state right before `target` began: undoes it and every later live turn, using
   * the oldest pre-image of each path (rule 1). Refuses with REWIND_CONFLICT when a path changed
   * since the agent last wrote it, unless `force` (rule 12). Captures the current state first so
   * `redo()` can undo the rewind (rule 5). Deletes only tombstoned paths (rule 10) and writes only
   * what differs (rule 11).
   *
   * @throws RewindConflictError `REWIND_CONFLICT`; UsageError `NO_SUCH_TURN` / `TURN_STATE`.
   */
  async rewind(target: TurnState, options: RestoreOptions = {}): Promise<RewindResult> {
    const log = this.#options.log;
    if (log.activeTurn) {
      throw new UsageError(
        'TURN_STATE',
        `Turn ${log.activeTurn.id} is still active: end it before rewinding.`,
      );
    }
    const turns = log.liveTurns().filter((turn) => turn.index >= target.index);
    const items = new Map<string, RestoreItem>();
    const directories: { root: string; path: string }[] = [];
    for (const turn of turns) {
      for (const [key, capture] of turn.captures) {
        const item = items.get(key);
        if (!item)
          items.set(key, {
            root: capture.root,
            path: capture.path,
            target: capture.pre,
            expected: capture.pre,
          });
      }
      for (const [key, post] of turn.posts) {
        const item = items.get(key);
        if (item) item.expected = post;
      }
      directories.push(...turn.directories.values());
    }
    const turnIds = turns.map((turn) => turn.id);
    const report = await this.#restore(
      [...items.values()],
      options,
      async (entries, dirs) => {
        const id = `r-${this.#options.now().getTime().toString(36)}-${randomBytes(3).toString('hex')}`;
        await this.#append({
          type: 'rewind',
          id,
          to: target.id,
          turns: turnIds,
          at: this.#options.now().toISOString(),
          force: options.force ?? false,
          entries,
          dirs: dirs.map((dir) => ({ path: dir.path, ...this.#rootField(dir.root) })),
        });
        return id;
      },
      directories,
    );
    if (!options.dryRun && report.report.failed.length > 0) {
      await this.#append({
        type: 'rewind-incomplete',
        rewind: report.id,
        failed: report.report.failed.map((failure) => failure.path),
        at: this.#options.now().toISOString(),
      });
    }
    return {
      ...report.report,
      rewindId: report.id,
      turns: turnIds,
      complete: report.report.failed.length === 0,
    };
  }

  /**
   * Undoes the last rewind: puts back what the rewind overwrote or deleted (its safety capture),
   * and makes its turns rollback points again.
   *
   * @throws UsageError `REDO_UNAVAILABLE` when there is nothing to redo or a turn ran since; RewindConflictError.
   */
  async redo(options: RestoreOptions = {}): Promise<RewindResult> {
    const log = this.#options.log;
    if (log.activeTurn)
      throw new UsageError('TURN_STATE', `Turn ${log.activeTurn.id} is still active: end it before redo.`);
    const rewind = log.redoCandidate();
    if (!rewind) {
      throw new UsageError(
        'REDO_UNAVAILABLE',
        'Nothing to redo: no rewind since the last turn, or a turn ran after it.',
      );
    }
    const items: RestoreItem[] = rewind.entries.map((entry) => ({
      root: entry.root ?? this.#options.workspace,
      path: entry.path,
      target: entry.before,
      expected: entry.after,
    }));
    const report = await this.#restore(
      items,
      options,
      async (entries) => {
        const id = `u-${this.#options.now().getTime().toString(36)}-${randomBytes(3).toString('hex')}`;
        await this.#append({
          type: 'redo',
          id,
          rewind: rewind.id,
          at: this.#options.now().toISOString(),
          entries,
        });
        return id;
      },
      [],
    );
    if (!options.dryRun) {
      for (const directory of rewind.directories) {
        // Empty directories the rewind removed come back too; a failure here loses no content.
        const absolute = await resolveRecordedPath(directory.root, directory.path)
          .then((resolved) => {
            this.checkPath(directory.root, resolved, directory.path);
            return resolved;
          })
          .catch(() => undefined);
        if (absolute) await mkdir(absolute, { recursive: true }).catch(() => undefined);
      }
    }
    return {
      ...report.report,
      rewindId: report.id,
      turns: rewind.turns,
      complete: report.report.failed.length === 0,
    };
  }

  async #restore(
    items: RestoreItem[],
    options: RestoreOptions,
    record: (entries: RestoreEntry[], directories: { root: string; path: string }[]) => Promise<string>,
    directories: { root: string; path: string }[],
  ): Promise<{ report: RestoreReport; id: string }> {
    const dryRun = options.dryRun ?? false;
    const plan = await planRestore(items, {
      checkPath: (root, absolute, display) => this.checkPath(root, absolute, display),
      sizeCapBytes: this.#options.sizeCapBytes,
      dryRun,
      createdDirectories: new Set(directories.map((directory) => pathKey(directory.root, directory.path))),
    });
    if (plan.conflicts.length > 0 && !options.force) throw new RewindConflictError(plan.conflicts);
    if (dryRun) {
      for (const write of plan.writes) {
        (write.item.target.kind === 'absent' ? plan.report.deleted : plan.report.restored).push(
          write.item.path,
        );
        if (write.conflict) plan.report.overwritten.push(write.item.path);
      }
      return { report: plan.report, id: '' };
    }
    // Rule 5: keep what is there now, so the restore can itself be undone. Content too large to
    // keep is overwritten only when it is exactly what the agent (or a bash call) left there —
    // never a user's edit; redo then names it as not restorable.
    const entries: RestoreEntry[] = [];
    const kept = [];
    const toStore: { hash: string; content: Uint8Array }[] = [];
    for (const write of plan.writes) {
      let before = write.current;
      if (before.kind === 'file' && write.content) {
        toStore.push({ hash: before.sha256, content: write.content });
      } else if (before.kind === 'file') {
        if (write.conflict) {
          plan.report.failed.push({
            path: write.item.path,
            code: 'TOO_LARGE_TO_KEEP',
            message: `${write.item.path} changed since the agent wrote it and is larger than the size cap, so it cannot be kept for redo; it was not overwritten.`,
          });
          continue;
        }
        before = { kind: 'skipped', reason: 'too-large', size: before.size };
      } else if (before.kind === 'skipped') {
        const blocked = before.reason === 'not-a-regular-file';
        plan.report.failed.push({
          path: write.item.path,
          code: blocked ? 'RESTORE_BLOCKED' : 'UNREADABLE',
          message: blocked
            ? `A directory or special file is in the way at ${write.item.path}; it was left alone.`
            : `${write.item.path} cannot be read (${before.reason}); it was not overwritten.`,
        });
        continue;
      }
      before = { ...before };
      entries.push({
        path: write.item.path,
        ...this.#rootField(write.item.root),
        before,
        after: write.item.target,
      });
      kept.push(write);
    }
    await mapConcurrent(toStore, 16, (blob) => this.blobs.put(blob.hash, blob.content));
    const id = await record(entries, directories);
    // Deletions first, then the directories the agent created (now empty), then the writes: a
    // file may have to come back where the agent had put a directory.
    const deletions = kept.filter((write) => write.item.target.kind === 'absent');
    const others = kept.filter((write) => write.item.target.kind !== 'absent');
    await applyPlan({ ...plan, writes: deletions }, this.blobs);
    plan.report.removedDirectories.push(
      ...(await removeCreatedDirectories(directories, (root, absolute, display) =>
        this.checkPath(root, absolute, display),
      )),
    );
    const report = await applyPlan({ ...plan, writes: others }, this.blobs);
    return { report, id };
  }
}

async function missingParents(root: string, relative: string): Promise<string[]> {
  const missing: string[] = [];
  let parent = path.posix.dirname(relative);
  while (parent !== '.') {
    try {
      await lstat(path.join(root, parent));
      break;
    } catch {
      missing.unshift(parent);
      parent = path.posix.dirname(parent);
    }
  }
  return missing;
}
