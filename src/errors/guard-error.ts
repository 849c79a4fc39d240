import { SafeturnError, type SafeturnErrorOptions } from './safeturn-error.js';

/**
 * A write refused by the read-before-edit guard: `GUARD_NEVER_READ` (the agent never read
 * the existing file) or `GUARD_STALE` (the file changed on disk since the agent read it).
 * Returned to the model as a tool error; the message tells it to read the file (again).
 */
export class GuardError extends SafeturnError {
  constructor(code: 'GUARD_NEVER_READ' | 'GUARD_STALE', message: string, options: SafeturnErrorOptions = {}) {
    super(code, message, options);
    this.name = 'GuardError';
  }
}
