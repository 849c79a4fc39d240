import { SafeturnError, type SafeturnErrorOptions } from '../errors/safeturn-error.js';

/** What made the sandbox unavailable; part of `data.cause` of {@link SandboxUnavailableError}. */
export type SandboxUnavailableCause =
  | 'unsupported-platform'
  | 'bwrap-missing'
  | 'bwrap-too-old'
  | 'seccomp-unsupported-arch'
  | 'preflight-failed'
  | 'setup-failed';

/**
 * The sandbox cannot run here (rule 9 of DESIGN.md): an unsupported platform, bubblewrap
 * missing or too old, or a preflight probe that failed (user namespaces refused, loopback
 * setup failing, /proc not mountable), or bwrap failing to set up one run (`setup-failed`: a bind source vanished).
 * Code `SANDBOX_UNAVAILABLE`. The message names the cause
 * and the fix; the command was NOT run, and is never retried outside the sandbox.
 */
export class SandboxUnavailableError extends SafeturnError {
  constructor(cause: SandboxUnavailableCause, message: string, options: SafeturnErrorOptions = {}) {
    super('SANDBOX_UNAVAILABLE', message, {
      ...options,
      data: { ...options.data, cause },
    });
    this.name = 'SandboxUnavailableError';
  }
}
