export type { SkippedPath } from './commit-message.js';
export type { ShadowGitCommand, ShadowGitCommandOptions } from './git-command.js';
export { shadowGitCommand } from './git-command.js';
export type { OpenShadowRepoOptions } from './open-options.js';
export { defaultMaxFileBytes, openShadowRepoOptionsSchema } from './open-options.js';
export { openShadowRepo } from './open-shadow-repo.js';
export type { ShadowFileEntry, ShadowLogEntry, TurnReference } from './queries.js';
export { baselineRef, sessionRef } from './refs.js';
export type { RepairReport } from './repair.js';
export { ShadowGitError } from './shadow-git-error.js';
export type {
  CommitFailure,
  CommitTurnInput,
  EnsureBaselineInput,
  FlushReport,
  QueuedCommit,
  RecordSkippedInput,
} from './shadow-repo.js';
export { ShadowRepo } from './shadow-repo.js';
export type {
  ShadowDiffQuery,
  ShadowLogQuery,
  ShadowRepoQueries,
  ShadowShowQuery,
} from './shadow-repo-queries.js';
export type { SkipReason } from './workspace-state.js';
