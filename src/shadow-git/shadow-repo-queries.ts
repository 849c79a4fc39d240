import { assertNormalRelative } from '../core/paths.js';
import type { CommitContext } from './commit-writer.js';
import { baselineCommit } from './history.js';
import { logQuerySchema, parseInput, turnReferenceSchema } from './input-schemas.js';
import {
  queryLog,
  readEntry,
  resolveTurnCommit,
  type ShadowFileEntry,
  type ShadowLogEntry,
  type TurnReference,
  turnDeltas,
} from './queries.js';
import { formatUnifiedDiff } from './unified-diff.js';

/** Query of {@link ShadowRepoQueries.log}. */
export interface ShadowLogQuery {
  /** Only this session's turns (and its skipped turns). @default every session, plus the baseline */
  session?: string;
  /** Only commits that changed this workspace-relative path (a file, or a directory and what is below it). */
  path?: string;
  /** At most this many entries, newest first. @default 50 */
  limit?: number;
  abortSignal?: AbortSignal;
}

/** Query of {@link ShadowRepoQueries.diff}. */
export interface ShadowDiffQuery {
  /** The older turn; alone, the diff is this turn's own change (its commit against its parent). */
  from: TurnReference;
  /** The newer turn. */
  to?: TurnReference;
  /** Lines of context around each change. @default 3 */
  context?: number;
  abortSignal?: AbortSignal;
}

/** Query of {@link ShadowRepoQueries.show}. */
export interface ShadowShowQuery {
  turn: TurnReference;
  /** Workspace-relative POSIX path. */
  path: string;
  abortSignal?: AbortSignal;
}

/** The read side of a shadow repository (history, diffs, file contents at a turn). */
export abstract class ShadowRepoQueries {
  readonly #store: CommitContext;
  readonly #skippedFile: string;

  protected constructor(store: CommitContext, skippedFile: string) {
    this.#store = store;
    this.#skippedFile = skippedFile;
  }

  /** Waits for this handle's queued commits, so queries see them. */
  protected abstract settled(): Promise<void>;

  /**
   * The history, newest first: committed turns (with the paths each changed), skipped turns and
   * the baseline.
   *
   * @returns up to `limit` {@link ShadowLogEntry} values.
   * @throws UsageError `INVALID_INPUT`.
   * @example
   * ```ts
   * const entries = await repo.log({ session: 's1', path: 'src/a.ts', limit: 20 });
   * ```
   */
  async log(query: ShadowLogQuery = {}): Promise<ShadowLogEntry[]> {
    const parsed = parseInput(logQuerySchema, { ...query, abortSignal: undefined }, 'log query');
    if (parsed.path !== undefined) assertNormalRelative(parsed.path);
    await this.settled();
    query.abortSignal?.throwIfAborted();
    return queryLog(this.#store, {
      session: parsed.session,
      path: parsed.path,
      limit: parsed.limit ?? 50,
      skippedFile: this.#skippedFile,
    });
  }

  /**
   * The commit id of a turn.
   *
   * @throws UsageError `NO_SUCH_TURN` or `INVALID_INPUT`.
   */
  async resolveTurn(turn: TurnReference, options: { abortSignal?: AbortSignal } = {}): Promise<string> {
    const reference = parseInput(turnReferenceSchema, turn, 'turn reference');
    await this.settled();
    options.abortSignal?.throwIfAborted();
    return (await resolveTurnCommit(this.#store, reference)).oid;
  }

  /** The baseline commit id, or undefined when there is none. */
  async baselineId(): Promise<string | undefined> {
    return (await baselineCommit(this.#store))?.oid;
  }

  /**
   * A git-style unified diff: of one turn's own change (`from` alone), or between two turns.
   *
   * @returns the patch text (empty when nothing differs).
   * @throws UsageError `NO_SUCH_TURN` or `INVALID_INPUT`.
   * @example
   * ```ts
   * const patch = await repo.diff({ from: { sessionId: 's1', turnId: 3 } });
   * ```
   */
  async diff(query: ShadowDiffQuery): Promise<string> {
    const from = parseInput(turnReferenceSchema, query.from, 'diff from');
    const to = query.to === undefined ? undefined : parseInput(turnReferenceSchema, query.to, 'diff to');
    await this.settled();
    query.abortSignal?.throwIfAborted();
    const fromCommit = await resolveTurnCommit(this.#store, from);
    const toCommit = to === undefined ? undefined : await resolveTurnCommit(this.#store, to);
    return formatUnifiedDiff(
      this.#store,
      await turnDeltas(this.#store, fromCommit, toCommit),
      query.context ?? 3,
    );
  }

  /**
   * A file as it was right after a turn: bytes, git mode and whether it is a symlink (then the
   * bytes are the link target). What a restore needs.
   *
   * @returns the {@link ShadowFileEntry}, or undefined when the path did not exist (or was a directory).
   * @throws UsageError `NO_SUCH_TURN` / `INVALID_INPUT`; PathError for a path not in normal form.
   */
  async showEntry(query: ShadowShowQuery): Promise<ShadowFileEntry | undefined> {
    const reference = parseInput(turnReferenceSchema, query.turn, 'turn reference');
    assertNormalRelative(query.path);
    await this.settled();
    query.abortSignal?.throwIfAborted();
    return readEntry(this.#store, await resolveTurnCommit(this.#store, reference), query.path);
  }

  /**
   * The bytes of a file right after a turn.
   *
   * @returns the bytes, or undefined when the path did not exist then.
   * @throws UsageError `NO_SUCH_TURN` / `INVALID_INPUT`; PathError for a path not in normal form.
   * @example
   * ```ts
   * const bytes = await repo.show({ turn: { sessionId: 's1', turnId: 2 }, path: 'src/a.ts' });
   * ```
   */
  async show(query: ShadowShowQuery): Promise<Uint8Array | undefined> {
    return (await this.showEntry(query))?.bytes;
  }
}
