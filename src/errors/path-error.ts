import { SafeturnError, type SafeturnErrorOptions } from './safeturn-error.js';

/**
 * A path that escapes the workspace (`..`, an absolute path elsewhere, a symlink that
 * resolves outside), code `PATH_OUTSIDE_WORKSPACE`; or a path that cannot be used at all
 * (empty, NUL byte, not valid UTF-8), code `PATH_INVALID`. Rule 4 of DESIGN.md.
 */
export class PathError extends SafeturnError {
  constructor(
    code: 'PATH_OUTSIDE_WORKSPACE' | 'PATH_INVALID',
    message: string,
    options: SafeturnErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'PathError';
  }
}
