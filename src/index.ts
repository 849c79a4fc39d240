// Errors

export type { CaptureResult, RestoreOptions, RewindResult } from './checkpoint/checkpoint-store.js';
// Checkpoints
export { DEFAULT_SIZE_CAP_BYTES } from './checkpoint/checkpoint-store.js';
export type { FileState, SkipReason } from './checkpoint/file-state.js';
export type { GcOptions, GcReport } from './checkpoint/gc.js';
export { collectGarbage, deleteSessionData } from './checkpoint/gc.js';
export type { RestoreFailure, RestoreReport } from './checkpoint/restore.js';
// Paths and home
export { projectId, resolveHome } from './core/home.js';
export type { ResolvedPath } from './core/paths.js';
export { resolveInRoot } from './core/paths.js';
export { GuardError } from './errors/guard-error.js';
export { PathError } from './errors/path-error.js';
export { RewindConflictError } from './errors/rewind-conflict-error.js';
export type { SafeturnErrorCode, SafeturnErrorOptions } from './errors/safeturn-error.js';
export { SafeturnError } from './errors/safeturn-error.js';
export { StoreError } from './errors/store-error.js';
export { UsageError } from './errors/usage-error.js';
export type { Fingerprint } from './guard/fingerprint.js';
export { takeFingerprint } from './guard/fingerprint.js';
export type { GuardVerdict, ReadGuardOptions } from './guard/read-guard.js';
// Guard
export { ReadGuard } from './guard/read-guard.js';
export type { CallPath, ToolCall, ToolMiddleware } from './loop/middleware.js';
export type { SessionListener } from './loop/session.js';
// Sessions, turns and wrapTools
export { createSession, Session } from './loop/session.js';
export type {
  BeginTurnOptions,
  CreateSessionOptions,
  RollbackPoint,
  TurnSummary,
} from './loop/session-options.js';
export { isToolFailure, toolFailure } from './loop/tool-failure.js';
export type {
  SafeturnTool,
  ToolContext,
  ToolFailure,
  ToolKind,
  ToolResult,
  ToolSuccess,
} from './loop/tool-types.js';
export type { ToolBinding, WrappedTool, WrapToolsOptions } from './loop/wrap-tools.js';
export { wrapTools } from './loop/wrap-tools.js';
export type { EditInput } from './tools/edit-tool.js';
export { createEditTool, editInputSchema } from './tools/edit-tool.js';
export type { ReadData, ReadInput } from './tools/read-tool.js';
export { createReadTool, readInputSchema } from './tools/read-tool.js';
// Reference tools
export { createReferenceTools } from './tools/reference-tools.js';
export type { WriteInput } from './tools/write-tool.js';
export { createWriteTool, writeInputSchema } from './tools/write-tool.js';
