export { worktreeConfigSchema } from './include-config.js';
export type {
  WorktreeConflictHunk,
  WorktreeConflictKind,
  WorktreeFileConflict,
  WorktreeMergeAction,
  WorktreeMergedFile,
  WorktreeMergeReport,
  WorktreeMergeStrategy,
  WorktreeSkippedFile,
} from './merge-types.js';
export { worktreeNameSchema } from './registry.js';
export type { MergeTextOptions, MergeTextResult } from './three-way-merge.js';
export { mergeText } from './three-way-merge.js';
export type {
  WorktreeCreated,
  WorktreeCreateOptions,
  WorktreeDiscarded,
  WorktreeDiscardOptions,
  WorktreeDoctorFinding,
  WorktreeDoctorOptions,
  WorktreeHost,
  WorktreeInfo,
  WorktreeManager,
  WorktreeMergeOptions,
  WorktreeState,
} from './types.js';
export { WorktreeConflictError } from './worktree-conflict-error.js';
export type { WorktreeErrorCode } from './worktree-error.js';
export { WorktreeError } from './worktree-error.js';
export { createWorktreeManager } from './worktree-manager.js';
export type { WorktreeTools } from './worktree-tools.js';
export {
  createWorktreeTools,
  worktreeCreateInputSchema,
  worktreeDiscardInputSchema,
  worktreeListInputSchema,
  worktreeMergeInputSchema,
} from './worktree-tools.js';
