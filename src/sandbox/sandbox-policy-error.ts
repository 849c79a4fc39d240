import { SafeturnError, type SafeturnErrorOptions } from '../errors/safeturn-error.js';

/**
 * A sandbox policy that cannot be enforced safely, or a config file that does not parse:
 * code `SANDBOX_POLICY`. `data.field` names the offending field (e.g. `sandbox.denyRead[2]`),
 * `data.file` the config file when it came from one. Never replaced by defaults (fail closed).
 */
export class SandboxPolicyError extends SafeturnError {
  constructor(field: string, message: string, options: SafeturnErrorOptions = {}) {
    super('SANDBOX_POLICY', message, { ...options, data: { ...options.data, field } });
    this.name = 'SandboxPolicyError';
  }
}
