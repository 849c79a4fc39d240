import { GuardError } from '../errors/guard-error.js';
import { type Fingerprint, takeFingerprint } from './fingerprint.js';

/** The guard's answer for one path. */
export type GuardVerdict = { ok: true } | { ok: false; error: GuardError };

/** Options of {@link ReadGuard}. */
export interface ReadGuardOptions {
  /**
   * Called whenever a baseline is taken or refreshed, so the host can persist it
   * (the session appends it to its journal). `undefined` means the baseline was dropped.
   */
  onBaseline?: (key: string, fingerprint: Fingerprint | undefined) => void;
}

/**
 * The read-before-edit guard. It keeps, per file, the fingerprint of what the agent last read
 * or wrote, and refuses a write to an existing file the agent never read (`GUARD_NEVER_READ`)
 * or that changed on disk since (`GUARD_STALE`). New files need no read. The content hash is
 * decisive: a touch or an autosave that keeps the bytes is not a change (the baseline's mtime is
 * quietly refreshed), while a change inside one mtime tick is caught.
 *
 * Keys are root-qualified paths chosen by the caller (the session uses `root\0relative`).
 *
 * @example
 * ```ts
 * const guard = new ReadGuard();
 * await guard.recordRead('a.ts', '/ws/a.ts');
 * const verdict = await guard.check('a.ts', '/ws/a.ts'); // { ok: true } unless a.ts changed since
 * ```
 */
export class ReadGuard {
  readonly #baselines = new Map<string, Fingerprint>();
  readonly #onBaseline: ReadGuardOptions['onBaseline'];

  constructor(options: ReadGuardOptions = {}) {
    this.#onBaseline = options.onBaseline;
  }

  /** Loads a persisted baseline without reporting it back (used when a session resumes). */
  load(key: string, fingerprint: Fingerprint | undefined): void {
    if (fingerprint) this.#baselines.set(key, fingerprint);
    else this.#baselines.delete(key);
  }

  /** The current baseline of a key, if any. */
  baseline(key: string): Fingerprint | undefined {
    return this.#baselines.get(key);
  }

  #set(key: string, fingerprint: Fingerprint | undefined): void {
    this.load(key, fingerprint);
    this.#onBaseline?.(key, fingerprint);
  }

  /**
   * Records that the agent read the file (a partial read counts).
   *
   * @param key - the path's key.
   * @param absolutePath - where the file is.
   * @param content - the bytes that were read, when the caller has them (avoids a second read).
   */
  async recordRead(key: string, absolutePath: string, content?: Uint8Array): Promise<void> {
    this.#set(key, await takeFingerprint(absolutePath, content));
  }

  /**
   * Re-takes the baseline after a successful write by the agent, or when a host ran a formatter
   * on the agent's output (`session.refreshBaseline`). A missing file drops the baseline.
   */
  async refresh(key: string, absolutePath: string): Promise<void> {
    this.#set(key, await takeFingerprint(absolutePath));
  }

  /**
   * Decides whether the agent may write the file now. Reads and hashes the file when it exists.
   *
   * @returns `{ ok: true }`, or `{ ok: false, error }` with a {@link GuardError} whose message tells the model what to do.
   */
  async check(key: string, absolutePath: string, displayPath: string): Promise<GuardVerdict> {
    const current = await takeFingerprint(absolutePath);
    if (current === undefined) return { ok: true };
    const baseline = this.#baselines.get(key);
    if (baseline === undefined) {
      return {
        ok: false,
        error: new GuardError(
          'GUARD_NEVER_READ',
          `Refused: ${displayPath} already exists and you have not read it in this session. Read it first, then retry the change.`,
          { data: { path: displayPath } },
        ),
      };
    }
    if (baseline.sha256 !== current.sha256 || baseline.size !== current.size) {
      return {
        ok: false,
        error: new GuardError(
          'GUARD_STALE',
          `Refused: ${displayPath} changed on disk since you last read it (someone or something else edited it). Read it again, then redo your change on the new content.`,
          { data: { path: displayPath } },
        ),
      };
    }
    if (baseline.mtimeNs !== current.mtimeNs) this.#set(key, current);
    return { ok: true };
  }
}
