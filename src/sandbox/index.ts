// Policy

export type { WritePathRefusal, WritePathVerdict } from './check-write-path.js';
export { checkWritePath } from './check-write-path.js';
export { CONFIG_FILE_NAME, DEFAULT_DENY_READ, HOME_PROTECTED_FILES } from './default-deny-read.js';
export type { SandboxCommandResult, SandboxTarget } from './handle-sandbox.js';
// Slash command
export { handleSandbox } from './handle-sandbox.js';
export type { SandboxMode, SandboxPolicy, SandboxPolicyInput } from './policy-schema.js';
export { SandboxModeSchema, SandboxPolicyInputSchema, SandboxPolicySchema } from './policy-schema.js';
export type { ResolvePolicyEnvironment } from './resolve-policy.js';
export { resolvePolicy } from './resolve-policy.js';
export type { RunSandboxedOptions, RunSandboxedResult } from './run-sandboxed.js';
export { runSandboxed } from './run-sandboxed.js';
export type { SandboxCheckReport } from './sandbox-check.js';
export { sandboxCheck } from './sandbox-check.js';
export type { SandboxCleanupReport } from './sandbox-cleanup.js';
// Errors
export { SandboxPolicyError } from './sandbox-policy-error.js';
export type { BwrapFeatures, DetectSandboxSupportOptions, SandboxSupport } from './sandbox-support.js';
// Platforms
export { detectSandboxSupport, MINIMUM_BWRAP_VERSION } from './sandbox-support.js';
export type { SandboxUnavailableCause } from './sandbox-unavailable-error.js';
export { SandboxUnavailableError } from './sandbox-unavailable-error.js';
export type { ScrubbedEnvironment } from './scrub-environment.js';
export { scrubEnvironment } from './scrub-environment.js';
export type { SeatbeltInput, SeatbeltInvocation } from './seatbelt-profile.js';
export { buildSeatbeltInvocation, toSeatbeltPath } from './seatbelt-profile.js';
export { buildUnixSocketFilter } from './seccomp-filter.js';
export type { WrapCommandOptions, WrappedCommand } from './wrap-command.js';
// Running commands
export { wrapCommand } from './wrap-command.js';
