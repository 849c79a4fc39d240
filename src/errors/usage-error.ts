import { SafeturnError, type SafeturnErrorOptions } from './safeturn-error.js';

/**
 * The host called the API in a way that cannot work: `INVALID_INPUT` (bad argument),
 * `INVALID_CONFIG` (bad configuration), `NO_SUCH_TURN`, `TURN_STATE` (no turn active, or one
 * already active), `REDO_UNAVAILABLE` (nothing to redo, or a turn ran since the rewind).
 */
export class UsageError extends SafeturnError {
  constructor(
    code:
      | 'INVALID_INPUT'
      | 'INVALID_CONFIG'
      | 'NO_SUCH_TURN'
      | 'TURN_STATE'
      | 'REDO_UNAVAILABLE'
      | 'SESSION_IN_USE'
      | 'NO_SUCH_SESSION'
      | 'READ_ONLY',
    message: string,
    options: SafeturnErrorOptions = {},
  ) {
    super(code, message, options);
    this.name = 'UsageError';
  }
}
