const marker = Symbol.for('safeturn.error');

/**
 * Stable error codes. Callers compare `error.code`, never the message.
 * Codes are part of the public contract: they are never renamed, only added.
 */
export type SafeturnErrorCode =
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'PATH_INVALID'
  | 'GUARD_NEVER_READ'
  | 'GUARD_STALE'
  | 'REWIND_CONFLICT'
  | 'REDO_UNAVAILABLE'
  | 'SESSION_IN_USE'
  | 'NO_SUCH_SESSION'
  | 'READ_ONLY'
  | 'NO_SUCH_TURN'
  | 'TURN_STATE'
  | 'INVALID_INPUT'
  | 'INVALID_CONFIG'
  | 'STORE_CORRUPT'
  | 'STORE_IO'
  | 'LOCK_TIMEOUT'
  | 'TOOL_FAILED'
  | 'EDIT_NO_MATCH'
  | 'EDIT_AMBIGUOUS'
  | 'PATCH_PARSE'
  | 'PATCH_APPLY'
  | 'SANDBOX_UNAVAILABLE'
  | 'SANDBOX_POLICY'
  | 'WORKTREE_NEEDS_GIT'
  | 'WORKTREE'
  | 'SHADOW_GIT'
  | (string & {});

/** Options shared by every {@link SafeturnError}. */
export interface SafeturnErrorOptions {
  /** Structured, JSON-serialisable detail (paths, turn ids, ...). */
  data?: Record<string, unknown>;
  /** The error this one wraps, kept as `cause`. */
  cause?: unknown;
}

/**
 * Base class of every error safeturn throws or returns to a model.
 *
 * Each subclass has a stable string `code`; `data` carries structured detail and
 * `toJSON()` gives a plain object a host can log or send over the wire.
 *
 * @example
 * ```ts
 * try { await session.rewind(3); }
 * catch (error) {
 *   if (SafeturnError.isInstance(error) && error.code === 'REWIND_CONFLICT') console.log(error.data.paths);
 * }
 * ```
 */
export class SafeturnError extends Error {
  readonly [marker] = true;
  readonly code: SafeturnErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: SafeturnErrorCode, message: string, options: SafeturnErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SafeturnError';
    this.code = code;
    this.data = options.data ?? {};
  }

  /**
   * True for any safeturn error, also one created by another copy of the package
   * (the check uses a `Symbol.for` marker, not `instanceof`).
   */
  static isInstance(value: unknown): value is SafeturnError {
    return typeof value === 'object' && value !== null && marker in value;
  }

  /** Plain-object form: `{ name, code, message, data }`. */
  toJSON(): { name: string; code: string; message: string; data: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, data: this.data };
  }
}
