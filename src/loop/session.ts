import { chmod, mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import {
  type CaptureResult,
  CheckpointStore,
  type RestoreOptions,
  type RewindResult,
} from '../checkpoint/checkpoint-store.js';
import type { FileState } from '../checkpoint/file-state.js';
import { observePath } from '../checkpoint/file-state.js';
import { collectGarbage, type GcOptions, type GcReport } from '../checkpoint/gc.js';
import type { Journal } from '../checkpoint/journal.js';
import type { JournalRecord } from '../checkpoint/journal-records.js';
import { BashStaging } from '../checkpoint/scan/bash-staging.js';
import type { CoverageNote } from '../checkpoint/scan/coverage.js';
import { pathKey, type TurnLog, type TurnState } from '../checkpoint/turn-log.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import { IN_MEMORY_HASH_LIMIT, sha256 } from '../core/hash.js';
import { KeyedQueue } from '../core/keyed-queue.js';
import type { Lock } from '../core/lock.js';
import { assertNotInHome, resolveInRoot } from '../core/paths.js';
import { UsageError } from '../errors/usage-error.js';
import { type GuardVerdict, ReadGuard } from '../guard/read-guard.js';
import type { SandboxPolicyInput } from '../sandbox/policy-schema.js';
import type { ShadowRepo } from '../shadow-git/shadow-repo.js';
import type { WorktreeManager } from '../worktree/types.js';
import { createWorktreeManager } from '../worktree/worktree-manager.js';
import type { SessionHistory } from './session-history.js';
import type { BeginTurnOptions, RollbackPoint, TurnSummary } from './session-options.js';
import { SessionSandbox } from './session-sandbox.js';

/** Hooks other layers attach to a session (shadow git on turn end, etc.). */
export interface SessionListener {
  /** Called after a turn ended and its end was journaled. Errors are reported to `onError`. */
  turnEnded?(summary: TurnSummary & { startedAt: string }): void | Promise<void>;
  /** Called after a rewind or redo wrote files. */
  restored?(result: RewindResult & { kind: 'rewind' | 'redo' }): void | Promise<void>;
}

/**
 * A conversation's safety state: its turns, the guard's baselines and the checkpoints, all
 * persisted under `<home>/projects/<id>/sessions/<session>/`. Create with {@link createSession}.
 */
export class Session {
  readonly id: string;
  /** The realpath'd workspace. */
  readonly workspace: string;
  readonly home: string;
  /** `<home>/projects/<id>`. */
  readonly projectDir: string;
  readonly sizeCapBytes: number;
  readonly maxTurns: number;
  readonly checkpoints: CheckpointStore;
  readonly guard: ReadGuard;
  readonly journal: Journal;
  /** Bash coverage: stage before a shell call, diff after. */
  readonly staging: BashStaging;
  #sandbox: SessionSandbox | undefined;
  readonly #history: SessionHistory | undefined;
  readonly #lock: Lock | undefined;
  #worktrees: WorktreeManager | undefined;
  /** Serialises writes per path (`root NUL path`). */
  readonly pathQueue = new KeyedQueue();
  readonly #log: TurnLog;
  readonly #now: () => Date;
  readonly #listeners: SessionListener[] = [];
  readonly #pending = new Set<Promise<unknown>>();
  readonly #errors: unknown[] = [];
  #root: string;

  /** @internal Use {@link createSession}. */
  constructor(parts: {
    id: string;
    workspace: string;
    home: string;
    projectDir: string;
    sizeCapBytes: number;
    maxTurns: number;
    journal: Journal;
    log: TurnLog;
    now: () => Date;
    skipDirectories?: readonly string[];
    watchFiles?: boolean;
    onScanProgress?: (entries: number) => void;
    sandbox?: SessionSandbox;
    history?: SessionHistory;
    lock?: Lock;
  }) {
    this.id = parts.id;
    this.workspace = parts.workspace;
    this.#root = parts.workspace;
    this.home = parts.home;
    this.projectDir = parts.projectDir;
    this.sizeCapBytes = parts.sizeCapBytes;
    this.maxTurns = parts.maxTurns;
    this.journal = parts.journal;
    this.#log = parts.log;
    this.#now = parts.now;
    this.guard = new ReadGuard({
      onBaseline: (key, fingerprint) => {
        this.#track(
          this.journal.append({
            type: 'read',
            key,
            ...(fingerprint
              ? {
                  fp: {
                    mtimeNs: fingerprint.mtimeNs.toString(),
                    size: fingerprint.size,
                    sha256: fingerprint.sha256,
                  },
                }
              : {}),
          }),
        );
      },
    });
    this.checkpoints = new CheckpointStore({
      workspace: parts.workspace,
      projectDir: parts.projectDir,
      home: parts.home,
      sessionId: parts.id,
      journal: parts.journal,
      log: parts.log,
      sizeCapBytes: parts.sizeCapBytes,
      now: parts.now,
    });
    this.staging = new BashStaging({
      projectDir: parts.projectDir,
      workspace: parts.workspace,
      blobs: this.checkpoints.blobs,
      sizeCapBytes: parts.sizeCapBytes,
      home: parts.home,
      ...(parts.onScanProgress ? { onScanProgress: parts.onScanProgress } : {}),
      ...(parts.skipDirectories ? { skipDirectories: parts.skipDirectories } : {}),
      ...(parts.watchFiles === undefined ? {} : { watch: parts.watchFiles }),
    });
    this.#sandbox = parts.sandbox;
    this.#history = parts.history;
    this.#lock = parts.lock;
  }

  /**
   * The workspace's shadow git repository (permanent, queryable history: `log`, `diff`, `show`),
   * or `undefined` when the session was created with `shadowGit: false`.
   */
  get history(): ShadowRepo | undefined {
    return this.#history?.repo;
  }

  /** The sandbox bash calls run under (and the write tools obey), when the session has a policy. */
  get sandbox(): SessionSandbox | undefined {
    return this.#sandbox;
  }

  /**
   * Turns the sandbox on (with this policy, merged over the config file) for the next calls.
   * @throws SandboxPolicyError `SANDBOX_POLICY` for an invalid policy.
   */
  async enableSandbox(input: SandboxPolicyInput = {}): Promise<SessionSandbox> {
    this.#sandbox = await SessionSandbox.open({ workspace: this.workspace, home: this.home, input });
    return this.#sandbox;
  }

  /**
   * The session's worktree manager: `create` / `merge` / `discard` / `list` / `doctor`. Merges write
   * through the checkpoint layer, so one rewind undoes a merge; while a worktree is active the tools
   * resolve paths inside it.
   */
  get worktrees(): WorktreeManager {
    this.#worktrees ??= createWorktreeManager({
      workspace: this.workspace,
      home: this.home,
      sessionId: this.id,
      beforeWrite: async (root, paths) => {
        for (const relative of paths) await this.checkpoints.capture(root, relative);
      },
      afterWrite: async (root, paths) => {
        for (const relative of paths) {
          await this.checkpoints.recordPost(root, relative);
          const key = pathKey(root, relative);
          if (this.guard.baseline(key)) await this.guard.refresh(key, path.join(root, relative));
        }
      },
      setActiveRoot: (root) => this.setActiveRoot(root),
    });
    return this.#worktrees;
  }

  #track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => {
      this.#errors.push(error);
    });
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
  }

  /** The directory tools resolve paths against: the workspace, or the active worktree. */
  get root(): string {
    return this.#root;
  }

  /** Points the tools at another root (a worktree), or back at the workspace with `undefined`. */
  setActiveRoot(root: string | undefined): void {
    this.#root = root ?? this.workspace;
  }

  /** Adds a listener; returns a function that removes it. */
  addListener(listener: SessionListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** The turn in progress, if any. */
  currentTurn(): { id: string; label: string; startedAt: string } | undefined {
    const turn = this.#log.activeTurn;
    return turn ? { id: turn.id, label: turn.label, startedAt: turn.startedAt } : undefined;
  }

  /**
   * Starts a turn: one user message and everything the agent does for it, the unit of rewind.
   * Applies retention (turns beyond `maxTurns` stop being rollback points).
   *
   * @throws UsageError `TURN_STATE` when a turn is already active; `INVALID_INPUT` for a used or invalid id.
   */
  async beginTurn(options: BeginTurnOptions): Promise<{ id: string; index: number; startedAt: string }> {
    if (this.#log.activeTurn) {
      throw new UsageError(
        'TURN_STATE',
        `Turn ${this.#log.activeTurn.id} is still active: call endTurn() first.`,
      );
    }
    // The baseline must not see this turn's writes (a no-op once it is committed).
    await this.#history?.baseline.catch(() => undefined);
    const index = (this.#log.order.at(-1)?.index ?? 0) + 1;
    const id = options.id ?? `t${index}`;
    if (!/^[A-Za-z0-9._:-]{1,200}$/.test(id) || this.#log.turns.has(id)) {
      throw new UsageError(
        'INVALID_INPUT',
        `Turn id ${JSON.stringify(id)} is invalid or already used in session ${this.id}.`,
      );
    }
    const startedAt = this.#now().toISOString();
    const record: JournalRecord = {
      type: 'turn',
      turn: id,
      label: String(options.label ?? ''),
      index,
      at: startedAt,
    };
    this.#log.apply(record);
    await this.journal.append(record);
    const kept = this.#log.order.filter((turn) => !turn.pruned);
    if (kept.length > this.maxTurns) {
      const prune = kept.slice(0, kept.length - this.maxTurns).map((turn) => turn.id);
      const pruneRecord: JournalRecord = { type: 'prune', turns: prune, at: startedAt };
      this.#log.apply(pruneRecord);
      await this.journal.append(pruneRecord);
    }
    return { id, index, startedAt };
  }

  /**
   * Ends the active turn and notifies listeners (shadow git commits in the background).
   * @throws UsageError `TURN_STATE` when no turn is active.
   */
  async endTurn(): Promise<TurnSummary> {
    const turn = this.#log.activeTurn;
    if (!turn) throw new UsageError('TURN_STATE', 'No turn is active.');
    await this.flushWrites();
    // The shadow commit's pending record first: a crash after it is repaired on the next start.
    await this.#commitToHistory(turn.id, turn.label, workspacePaths(turn, this.workspace));
    const record: JournalRecord = { type: 'turn-end', turn: turn.id, at: this.#now().toISOString() };
    this.#log.apply(record);
    await this.journal.append(record);
    const summary = { turnId: turn.id, label: turn.label, files: filesOf(turn) };
    for (const listener of this.#listeners) {
      if (listener.turnEnded)
        this.#track(Promise.resolve(listener.turnEnded({ ...summary, startedAt: turn.startedAt })));
    }
    return summary;
  }

  /**
   * Rollback points, newest first, numbered from 1: each turn still live (not undone by a rewind,
   * not pruned by retention), with its label cut to 120 characters, start time and touched files.
   */
  rollbackPoints(): RollbackPoint[] {
    return this.#log
      .liveTurns()
      .reverse()
      .map((turn, position) => ({
        number: position + 1,
        turnId: turn.id,
        label: turn.label.length > 120 ? `${turn.label.slice(0, 119)}…` : turn.label,
        startedAt: turn.startedAt,
        ...(turn.endedAt ? { endedAt: turn.endedAt } : {}),
        files: filesOf(turn),
      }));
  }

  /** Finds a live turn by id, or by its number in {@link rollbackPoints} (1 = newest). */
  #findTurn(target: string | number): TurnState {
    const live = this.#log.liveTurns();
    if (typeof target === 'number') {
      const turn = Number.isInteger(target) && target >= 1 ? live[live.length - target] : undefined;
      if (!turn)
        throw new UsageError('NO_SUCH_TURN', `No rollback point number ${target}: there are ${live.length}.`);
      return turn;
    }
    const turn = live.find((candidate) => candidate.id === target);
    if (!turn) {
      const known = this.#log.turns.get(target);
      const why = known
        ? known.pruned
          ? 'it was pruned by retention'
          : 'it was undone by a rewind'
        : 'no such turn';
      const ids = live.map((candidate) => candidate.id);
      throw new UsageError(
        'NO_SUCH_TURN',
        `Cannot rewind to turn ${JSON.stringify(target)}: ${why}. Rollback points: ${ids.join(', ') || 'none'}.`,
        {
          data: { turn: target, known: ids },
        },
      );
    }
    return turn;
  }

  /**
   * Puts the workspace back as it was right before `target` began, undoing that turn and every
   * later one (see DESIGN.md rules 1-5, 10-12).
   *
   * @param target - a turn id, or a rollback point number (1 = newest, as in `rollbackPoints()`).
   * @returns the restore report: restored, deleted, unchanged, skipped and failed paths.
   * @throws RewindConflictError `REWIND_CONFLICT` (nothing written) unless `force`;
   *   UsageError `NO_SUCH_TURN`, `TURN_STATE` (a turn is active).
   */
  async rewind(target: string | number, options: RestoreOptions = {}): Promise<RewindResult> {
    await this.flushWrites();
    const result = await this.checkpoints.rewind(this.#findTurn(target), options);
    if (!options.dryRun) await this.#restored(result, 'rewind');
    return result;
  }

  /**
   * Undoes the last rewind (its safety capture puts back what it overwrote), when no turn ran since.
   * @throws UsageError `REDO_UNAVAILABLE`; RewindConflictError `REWIND_CONFLICT` unless `force`.
   */
  async redo(options: RestoreOptions = {}): Promise<RewindResult> {
    await this.flushWrites();
    const result = await this.checkpoints.redo(options);
    if (!options.dryRun) await this.#restored(result, 'redo');
    return result;
  }

  /** Rules A and B: skip while a worktree is active; a rewind is a new commit, never a rewrite. */
  async #commitToHistory(turnId: string, label: string, paths: string[]): Promise<void> {
    const history = this.#history;
    if (!history) return;
    const worktree = this.#worktrees?.activeName();
    if (worktree !== undefined) {
      await history.repo.recordSkipped({
        sessionId: this.id,
        turnId,
        label,
        reason: `worktree-active:${worktree}`,
      });
      return;
    }
    const queued = await history.repo.commitTurn({ sessionId: this.id, turnId, label, paths });
    this.#track(queued.committed);
  }

  async #restored(result: RewindResult, kind: 'rewind' | 'redo'): Promise<void> {
    const changed = [...result.restored, ...result.deleted];
    if (changed.length > 0)
      await this.#commitToHistory(result.rewindId, `${kind}: ${result.turns.join(', ')}`, changed);
    // Restored files are what the agent sees now: refresh their baselines.
    for (const relative of [...result.restored, ...result.deleted]) {
      const absolute = path.join(this.workspace, relative);
      if (this.guard.baseline(pathKey(this.workspace, relative)))
        await this.guard.refresh(pathKey(this.workspace, relative), absolute);
    }
    for (const listener of this.#listeners) {
      if (listener.restored) this.#track(Promise.resolve(listener.restored({ ...result, kind })));
    }
  }

  /**
   * Resolves a path the agent gave against the active root, checking containment (rule 4).
   * @param followFinalSymlink - act on a final symlink's target (tools do), or on the link itself. @default true
   * @throws PathError `PATH_OUTSIDE_WORKSPACE` / `PATH_INVALID`.
   */
  async resolve(
    input: string,
    followFinalSymlink = true,
  ): Promise<{ root: string; absolute: string; relative: string; key: string }> {
    const root = this.#root;
    const resolved = await resolveInRoot(root, input, { followFinalSymlink });
    assertNotInHome(this.home, root, resolved.absolute, resolved.relative);
    return { root, ...resolved, key: pathKey(root, resolved.relative) };
  }

  /**
   * Records that the agent read a file (a partial read counts). Tools of kind `read` do this.
   * @param content - the bytes read, when the caller has them.
   */
  async recordRead(input: string, content?: Uint8Array): Promise<void> {
    const resolved = await this.resolve(input);
    await this.guard.recordRead(resolved.key, resolved.absolute, content);
  }

  /**
   * Re-takes the guard baseline of a file, e.g. after the host ran a formatter on the agent's write.
   * @throws PathError when the path escapes the workspace.
   */
  async refreshBaseline(input: string): Promise<void> {
    const resolved = await this.resolve(input);
    await this.guard.refresh(resolved.key, resolved.absolute);
  }

  /** The guard's verdict for writing a path now. */
  async checkWrite(input: string): Promise<GuardVerdict> {
    const resolved = await this.resolve(input);
    return this.guard.check(resolved.key, resolved.absolute, resolved.relative);
  }

  /**
   * Captures pre-images of paths in the active turn, for hosts whose own tools write files.
   * Call before writing; call {@link recordWritten} after. A final symlink is captured as the link.
   * @throws UsageError `TURN_STATE` when no turn is active; PathError for paths outside the root.
   */
  async capture(paths: string[]): Promise<CaptureResult[]> {
    const results: CaptureResult[] = [];
    for (const input of paths) {
      const resolved = await this.resolve(input, false);
      results.push(await this.checkpoints.capture(resolved.root, resolved.relative));
    }
    return results;
  }

  /** Records the post state of written paths (rule 12's evidence) and refreshes their baselines. */
  async recordWritten(paths: string[]): Promise<FileState[]> {
    const states: FileState[] = [];
    for (const input of paths) {
      const resolved = await this.resolve(input, false);
      states.push(await this.checkpoints.recordPost(resolved.root, resolved.relative));
      await this.guard.refresh(resolved.key, resolved.absolute);
    }
    return states;
  }

  /**
   * Attaches a note to the active turn (journaled; other layers use it for coverage notes).
   * @throws UsageError `TURN_STATE` when no turn is active.
   */
  async addNote(kind: string, data: unknown): Promise<void> {
    const turn = this.#log.activeTurn;
    if (!turn) throw new UsageError('TURN_STATE', 'No turn is active.');
    const record: JournalRecord = { type: 'note', turn: turn.id, kind, data };
    this.#log.apply(record);
    await this.journal.append(record);
  }

  /**
   * What bash calls of a turn changed and what they could not cover (merged coverage notes).
   * @param turnId - the turn. @default the active turn, else the newest one
   * @throws UsageError `NO_SUCH_TURN`.
   */
  coverage(turnId?: string): CoverageNote {
    const turn =
      turnId === undefined ? (this.#log.activeTurn ?? this.#log.order.at(-1)) : this.#log.turns.get(turnId);
    if (!turn)
      throw new UsageError('NO_SUCH_TURN', `No turn ${JSON.stringify(turnId ?? '')} in session ${this.id}.`);
    const merged: CoverageNote = {
      turn: turn.id,
      created: [],
      modified: [],
      deleted: [],
      createdDirectories: [],
      uncovered: [],
    };
    for (const note of turn.notes) {
      if (note.kind !== 'coverage') continue;
      const data = note.data as CoverageNote;
      merged.created.push(...data.created);
      merged.modified.push(...data.modified);
      merged.deleted.push(...data.deleted);
      merged.createdDirectories.push(...data.createdDirectories);
      merged.uncovered.push(...data.uncovered);
    }
    return merged;
  }

  /** Waits for background journal appends and listeners; rethrows the first background error. */
  async flush(): Promise<void> {
    await this.flushWrites();
    if (this.#history) {
      const report = await this.#history.repo.flush();
      this.#errors.push(...report.failures.map((failure) => failure.error));
    }
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
    const error = this.#errors.shift();
    if (error !== undefined) throw error;
  }

  /** Waits for queued journal appends. */
  async flushWrites(): Promise<void> {
    await this.journal.flush();
  }

  /**
   * Deletes blobs nothing references (and prunes oldest turns while over `maxStoreBytes`).
   * @see collectGarbage
   */
  async gc(options: Omit<GcOptions, 'projectDir'> = {}): Promise<GcReport> {
    await this.flush();
    return collectGarbage({ ...options, projectDir: this.projectDir });
  }

  /** Flushes and releases the session (closes the bash staging's file watches). */
  async close(): Promise<void> {
    this.staging.close();
    try {
      await this.flush();
    } finally {
      await this.#history?.repo.close();
      await this.#lock?.release();
    }
  }

  /**
   * Puts one file back as it was at the end of a turn, from the shadow history. Goes through the
   * checkpoint layer (captured first), so rewinding the active turn undoes it.
   *
   * @param turn - a turn id of this session, or `{ sessionId, turnId }`.
   * @param input - the path, relative to the workspace.
   * @returns `restored` (written), `deleted` (the file did not exist then) or `unchanged`.
   * @throws UsageError `TURN_STATE` (no active turn) or `INVALID_INPUT` (no shadow history); ShadowGitError for an unknown turn.
   */
  async restoreFile(
    turn: string | { sessionId: string; turnId: string },
    input: string,
  ): Promise<'restored' | 'deleted' | 'unchanged'> {
    const history = this.#history;
    if (!history)
      throw new UsageError('INVALID_INPUT', 'This session has no shadow history (shadowGit: false).');
    if (!this.#log.activeTurn)
      throw new UsageError('TURN_STATE', 'restoreFile needs an active turn: call beginTurn() first.');
    await this.flush();
    const resolved = await resolveInRoot(this.workspace, input);
    const reference = typeof turn === 'string' ? { sessionId: this.id, turnId: turn } : turn;
    const entry = await history.repo.showEntry({ turn: reference, path: resolved.relative });
    const key = pathKey(this.workspace, resolved.relative);
    return this.pathQueue.run([key], async () => {
      const current = await observePath(resolved.absolute, {
        sizeCapBytes: IN_MEMORY_HASH_LIMIT,
        hashLarge: true,
      });
      const wanted = entry
        ? { sha: sha256(entry.bytes), symlink: entry.isSymlink, executable: entry.executable }
        : undefined;
      const same = wanted
        ? wanted.symlink
          ? current.state.kind === 'symlink' &&
            current.state.target === Buffer.from(entry!.bytes).toString('utf8')
          : current.state.kind === 'file' &&
            current.state.sha256 === wanted.sha &&
            ((current.state.mode & 0o111) !== 0) === wanted.executable
        : current.state.kind === 'absent';
      if (same) return 'unchanged';
      const capture = await this.checkpoints.capture(this.workspace, resolved.relative);
      let outcome: 'restored' | 'deleted' | 'unchanged';
      if (!entry) {
        outcome = capture.pre.kind === 'absent' ? 'unchanged' : 'deleted';
        await rm(resolved.absolute, { force: true });
      } else if (entry.isSymlink) {
        await rm(resolved.absolute, { force: true });
        await mkdir(path.dirname(resolved.absolute), { recursive: true });
        await symlink(Buffer.from(entry.bytes).toString('utf8'), resolved.absolute);
        outcome = 'restored';
      } else {
        await mkdir(path.dirname(resolved.absolute), { recursive: true });
        const mode = entry.executable ? 0o755 : 0o644;
        await writeFileAtomic(resolved.absolute, entry.bytes, { mode });
        await chmod(resolved.absolute, mode);
        outcome = 'restored';
      }
      await this.checkpoints.recordPost(this.workspace, resolved.relative);
      if (this.guard.baseline(key)) await this.guard.refresh(key, resolved.absolute);
      return outcome;
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function workspacePaths(turn: TurnState, workspace: string): string[] {
  return [
    ...new Set(
      [...turn.captures.values()]
        .filter((capture) => capture.root === workspace)
        .map((capture) => capture.path),
    ),
  ].sort();
}

function filesOf(turn: TurnState): string[] {
  return [...new Set([...turn.captures.values()].map((capture) => capture.path))].sort();
}
