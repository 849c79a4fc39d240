import { SafeturnError, type SafeturnErrorOptions } from '../errors/safeturn-error.js';

/**
 * The shadow repository could not be read or written (code `SHADOW_GIT`): an object or ref is
 * missing or unreadable, the disk refused a write, or a background commit failed.
 * `data.reason` names what went wrong in one word (`io`, `corrupt`, `closed`, `commit-failed`),
 * `data.gitdir` the repository; `cause` keeps the underlying error.
 */
export class ShadowGitError extends SafeturnError {
  constructor(message: string, options: SafeturnErrorOptions = {}) {
    super('SHADOW_GIT', message, options);
    this.name = 'ShadowGitError';
  }
}
