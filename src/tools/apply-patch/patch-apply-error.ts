import { SafeturnError, type SafeturnErrorOptions } from '../../errors/safeturn-error.js';

/**
 * A well-formed patch that cannot be applied (code `PATCH_APPLY`): a chunk whose lines are not
 * in the file, an Update or Delete of a missing file, a path that is a directory or not UTF-8
 * text, or a write that failed (every file already written was put back). `data.path` names
 * the file; a chunk that does not match adds `data.expected` (its first lines) and
 * `data.candidates` (closest 1-based line numbers). No file was changed.
 *
 * @example
 * ```ts
 * try { await applyPatch(text, { root }); }
 * catch (error) { if (SafeturnError.isInstance(error) && error.code === 'PATCH_APPLY') console.log(error.data.candidates); }
 * ```
 */
export class PatchApplyError extends SafeturnError {
  constructor(message: string, options: SafeturnErrorOptions = {}) {
    super('PATCH_APPLY', message, options);
    this.name = 'PatchApplyError';
  }
}
