import PQueue from 'p-queue';
import { projectId } from '../core/home.js';
import { assertNormalRelative } from '../core/paths.js';
import { SafeturnError } from '../errors/safeturn-error.js';
import type { SkippedPath } from './commit-message.js';
import { type CommitContext, landBaseline, landRecord, snapshotPaths } from './commit-writer.js';
import { commitTurnInputSchema, parseInput, recordSkippedInputSchema } from './input-schemas.js';
import { currentOwner, newRecordId, type PendingRecord, writePendingRecord } from './pending-records.js';
import { type RepairReport, repairRepository } from './repair.js';
import type { RepositoryLayout } from './repository-layout.js';
import { withRepositoryLock } from './repository-lock.js';
import { ShadowGitError } from './shadow-git-error.js';
import { ShadowRepoQueries } from './shadow-repo-queries.js';
import { appendSkippedTurn } from './skipped-turns.js';

/** Input of {@link ShadowRepo.commitTurn}. */
export interface CommitTurnInput {
  sessionId: string;
  turnId: string | number;
  /** Human-readable label, e.g. the user's message. @default `turn <turnId>` */
  label?: string;
  /** Workspace-relative POSIX paths the turn changed (created, modified, deleted, chmod'ed). */
  paths: string[];
  /** Aborts the snapshot; once the call has returned, the commit is queued and will land. */
  abortSignal?: AbortSignal;
}

/** A turn whose blobs are written and whose commit is queued. */
export interface QueuedCommit {
  sessionId: string;
  turnId: string;
  /** Id of the pending record (also in the commit message as `Safeturn-Record`). */
  recordId: string;
  /** Changed paths that will not be stored, with the reason. */
  skippedPaths: SkippedPath[];
  /** Resolves with the commit id once the commit is on `refs/safeturn/<session>`. */
  committed: Promise<string>;
}

/** A background commit that failed; its pending record stays on disk and the next `repair()` retries it. */
export interface CommitFailure {
  kind: 'turn' | 'baseline';
  sessionId?: string;
  turnId?: string;
  error: SafeturnError;
}

/** What {@link ShadowRepo.flush} reports. */
export interface FlushReport {
  /** Background commits that failed since the previous flush (empty when all landed). */
  failures: CommitFailure[];
}

/** Input of {@link ShadowRepo.recordSkipped}. */
export interface RecordSkippedInput {
  sessionId: string;
  turnId: string | number;
  label?: string;
  /** Why, e.g. `worktree-active` (rule A). */
  reason: string;
}

/** Input of {@link ShadowRepo.ensureBaseline}. */
export interface EnsureBaselineInput {
  /** Workspace-relative POSIX paths of the covered files (e.g. from a stat scan). */
  paths: string[] | AsyncIterable<string>;
  /** @default 'baseline' */
  label?: string;
  abortSignal?: AbortSignal;
}

function wrapFailure(error: unknown, gitdir: string): SafeturnError {
  if (SafeturnError.isInstance(error)) return error;
  return new ShadowGitError(
    `A shadow commit failed: ${error instanceof Error ? error.message : String(error)}`,
    {
      data: { reason: 'commit-failed', gitdir },
      cause: error,
    },
  );
}

async function* checkedPaths(paths: string[] | AsyncIterable<string>): AsyncGenerator<string> {
  const seen = new Set<string>();
  for await (const relative of paths) {
    assertNormalRelative(relative);
    if (seen.has(relative)) continue;
    seen.add(relative);
    yield relative;
  }
}

/**
 * A handle on one workspace's shadow repository. Commits run in a background queue (one per
 * handle); queries first wait for this handle's queued commits. Close it with `close()` or
 * `await using`.
 */
export class ShadowRepo extends ShadowRepoQueries {
  /** The realpath'd workspace. */
  readonly workspace: string;
  /** `<home>/projects/<id>/shadow.git`. */
  readonly gitdir: string;
  /** The project id (first 16 hex of sha256 of the workspace path). */
  readonly projectId: string;
  /** What the repair on open found and fixed. */
  openRepair: RepairReport | undefined;
  readonly #layout: RepositoryLayout;
  readonly #context: CommitContext;
  readonly #now: () => number;
  readonly #lockTimeoutMs: number;
  readonly #concurrency: number;
  readonly #queue = new PQueue({ concurrency: 1 });
  readonly #intake = new PQueue({ concurrency: 1 });
  #failures: CommitFailure[] = [];
  #sequence = 0;
  #closed = false;

  /** @internal Use {@link openShadowRepo}. */
  constructor(
    layout: RepositoryLayout,
    context: CommitContext,
    settings: { now: () => number; lockTimeoutMs: number; concurrency: number },
  ) {
    super(context, layout.skippedFile);
    this.workspace = context.workspace;
    this.gitdir = layout.gitdir;
    this.projectId = projectId(context.workspace);
    this.#layout = layout;
    this.#context = context;
    this.#now = settings.now;
    this.#lockTimeoutMs = settings.lockTimeoutMs;
    this.#concurrency = settings.concurrency;
  }

  protected override async settled(): Promise<void> {
    await this.#queue.onIdle();
  }

  #locked<Result>(
    purpose: string,
    action: () => Promise<Result>,
    abortSignal?: AbortSignal,
  ): Promise<Result> {
    return withRepositoryLock(
      { lockFile: this.#layout.lockFile, timeoutMs: this.#lockTimeoutMs, purpose, abortSignal },
      action,
    );
  }

  #assertOpen(): void {
    if (this.#closed)
      throw new ShadowGitError(`The shadow repository ${this.gitdir} is closed.`, {
        data: { reason: 'closed', gitdir: this.gitdir },
      });
  }

  #track(committed: Promise<string>, failure: Omit<CommitFailure, 'error'>): void {
    committed.catch((error: unknown) => {
      this.#failures.push({ ...failure, error: wrapFailure(error, this.gitdir) });
    });
  }

  /**
   * Records the end of a turn: reads each changed path from the workspace now (file bytes and
   * executable bit, symlink target, or absence), writes their blobs, persists a pending record,
   * and queues the commit (tree = previous tree with exactly these paths changed). Returns as soon
   * as the commit is queued; `committed` resolves with the commit id.
   *
   * @returns the {@link QueuedCommit}.
   * @throws UsageError `INVALID_INPUT`; PathError `PATH_INVALID` / `PATH_OUTSIDE_WORKSPACE` for a path not in normal form.
   * @example
   * ```ts
   * const queued = await repo.commitTurn({ sessionId: 's1', turnId: 3, label: 'fix the parser', paths: ['src/a.ts'] });
   * const commitId = await queued.committed;
   * ```
   */
  async commitTurn(input: CommitTurnInput): Promise<QueuedCommit> {
    this.#assertOpen();
    const { sessionId, turnId, label, paths } = parseInput(
      commitTurnInputSchema,
      { ...input, abortSignal: undefined },
      'commitTurn input',
    );
    const unique = [...new Set(paths)];
    for (const relative of unique) assertNormalRelative(relative);
    return this.#intake.add(async () => {
      const snapshot = await snapshotPaths(this.#context, unique, this.#concurrency, input.abortSignal);
      input.abortSignal?.throwIfAborted();
      const timeMs = this.#now();
      this.#sequence += 1;
      const record: PendingRecord = {
        version: 1,
        id: newRecordId(timeMs, this.#sequence),
        sessionId,
        turnId,
        label: label ?? `turn ${turnId}`,
        timeMs,
        ...currentOwner(),
        changes: snapshot.changes,
        skipped: snapshot.skipped,
      };
      await writePendingRecord(this.#layout.pendingDir, record);
      const committed = this.#queue.add(() =>
        this.#locked(`commit turn ${turnId}`, () => landRecord(this.#context, record)),
      );
      this.#track(committed, { kind: 'turn', sessionId, turnId });
      return { sessionId, turnId, recordId: record.id, skippedPaths: snapshot.skipped, committed };
    });
  }

  /**
   * Queues the baseline commit (the covered files, before the first turn) unless the repository
   * has one. Await it before the first turn writes, or the baseline may see that turn's writes.
   *
   * @returns the baseline commit id (an existing one when there was one).
   * @throws PathError for a path not in normal form; StoreError `LOCK_TIMEOUT`.
   */
  ensureBaseline(input: EnsureBaselineInput): Promise<string> {
    this.#assertOpen();
    const label = input.label ?? 'baseline';
    const landed = this.#queue.add(async () => {
      const existing = await this.baselineId();
      if (existing !== undefined) return existing;
      const snapshot = await snapshotPaths(
        this.#context,
        checkedPaths(input.paths),
        this.#concurrency,
        input.abortSignal,
      );
      return this.#locked('baseline', () => landBaseline(this.#context, snapshot, label, this.#now()));
    });
    this.#track(landed, { kind: 'baseline' });
    return landed;
  }

  /**
   * Durably records a turn whose commit was skipped on purpose (rule A: a worktree was active for
   * the session); it shows in {@link log} as `kind: 'skipped'` with its reason.
   *
   * @throws UsageError `INVALID_INPUT`.
   */
  async recordSkipped(input: RecordSkippedInput): Promise<void> {
    this.#assertOpen();
    const parsed = parseInput(recordSkippedInputSchema, input, 'recordSkipped input');
    await appendSkippedTurn(this.#layout.skippedFile, {
      sessionId: parsed.sessionId,
      turnId: parsed.turnId,
      label: parsed.label ?? `turn ${parsed.turnId}`,
      reason: parsed.reason,
      timeMs: this.#now(),
    });
  }

  /**
   * Waits until every queued commit of this handle has landed or failed.
   *
   * @returns the failures since the previous flush (their records stay for the next repair).
   */
  async flush(): Promise<FlushReport> {
    await this.#intake.onIdle();
    await this.#queue.onIdle();
    const failures = this.#failures;
    this.#failures = [];
    return { failures };
  }

  /**
   * Repairs the repository under the lock: torn refs restored from their reflog, pending commits
   * of killed (or failed) runs landed, leftover temp files removed. Runs on open too.
   *
   * @throws StoreError `LOCK_TIMEOUT`.
   */
  async repair(options: { abortSignal?: AbortSignal } = {}): Promise<RepairReport> {
    this.#assertOpen();
    return this.#queue.add(() =>
      this.#locked('repair', () => repairRepository(this.#context, this.#now()), options.abortSignal),
    );
  }

  /** Flushes, then refuses further commits. @returns the flush report. */
  async close(): Promise<FlushReport> {
    if (this.#closed) return { failures: [] };
    const report = await this.flush();
    this.#closed = true;
    return report;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
