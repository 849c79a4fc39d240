import { SafeturnError, type SafeturnErrorOptions } from '../../errors/safeturn-error.js';

/**
 * A malformed patch (code `PATCH_PARSE`): missing `*** Begin Patch` / `*** End Patch`, an unknown
 * header, a line without a ` `/`+`/`-` prefix, an empty hunk. `data.line` is the 1-based line
 * number in the text given to `parsePatch`; the message names it so a model can fix its patch.
 *
 * @example
 * ```ts
 * try { parsePatch(text); }
 * catch (error) { if (error instanceof PatchParseError) console.log(error.line, error.message); }
 * ```
 */
export class PatchParseError extends SafeturnError {
  /** 1-based line number of the offending line. */
  readonly line: number;

  constructor(line: number, message: string, options: SafeturnErrorOptions = {}) {
    super('PATCH_PARSE', `Invalid patch, line ${line}: ${message}`, {
      ...options,
      data: { line, ...options.data },
    });
    this.name = 'PatchParseError';
    this.line = line;
  }
}
